"""Errors that reach the user as one clear line: where, what was wrong, how to fix it.

Every error a user can cause derives from :class:`QosforgeError`. The CLI catches it, prints
``error: <place>: <message> (hint: <hint>)`` on stderr and exits with :data:`EXIT_BAD_INPUT`;
no traceback is ever shown for these.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_BAD_INPUT = 2


class QosforgeError(Exception):
    """A problem with the user's input or design, reported without a traceback.

    ``place`` names where the problem is (a flag such as ``--buffer``, or ``file:line:col field``),
    ``hint`` says how to fix it.
    """

    def __init__(self, message: str, *, place: str | None = None, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.place = place
        self.hint = hint

    def with_place(self, place: str) -> QosforgeError:
        """Return a copy of this error located at ``place`` (keeps the subclass)."""
        located = type(self).__new__(type(self))
        QosforgeError.__init__(located, self.message, place=place, hint=self.hint)
        return located

    def one_line(self) -> str:
        text = f"{self.place}: {self.message}" if self.place else self.message
        if self.hint:
            text += f" (hint: {self.hint})"
        return " ".join(text.split())

    def __str__(self) -> str:
        return self.one_line()


class UnitError(QosforgeError):
    """A quantity string that is malformed, ambiguous or physically impossible."""


class ModelInputError(QosforgeError):
    """Inputs outside a model's domain (zero buffer, M < 1, alpha <= 0, ...)."""


class InfeasibleDesignError(QosforgeError):
    """The inputs are valid but the design cannot work (e.g. no headroom left for TLT)."""


class ProfileError(QosforgeError):
    """An unknown vendor profile or a profile file that does not validate."""
