"""Errors that reach the user as one clear line: where, what was wrong, how to fix it.

Every error a user can cause derives from :class:`QosforgeError`. The CLI catches it, prints
``error: <place>: <message> (hint: <hint>)`` on stderr and exits with :data:`EXIT_BAD_INPUT`;
no traceback is ever shown for these.
"""

from __future__ import annotations

import re

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_BAD_INPUT = 2
#: The command ran on good input but did not deliver all it was asked for, and says what is
#: missing: ``check deadlock`` stopped before proving the fabric deadlock-free, ``compile --base``
#: wrote no patch for a switch GCU would refuse it on.
EXIT_INCOMPLETE = 3
#: An unexpected exception: a qosforge bug (``EX_SOFTWARE`` in BSD sysexits.h).
EXIT_BUG = 70
#: Interrupted (Ctrl-C): 128 + SIGINT, the status a shell gives a process SIGINT ended.
EXIT_INTERRUPTED = 130

#: What the user can do about the common operating-system errors (errno names).
_OS_ERROR_HINTS = {
    "ENOSPC": "free space on that file system or write elsewhere with -o",
    "EDQUOT": "free space within your quota or write elsewhere with -o",
    "EROFS": "the file system is read-only: write elsewhere with -o",
    "EACCES": "check the permissions of the path and its folders, or write elsewhere",
    "EPERM": "check the permissions of the path and its folders, or write elsewhere",
    "ENOTDIR": "a part of the path is a regular file, not a folder",
    "ENOENT": "check the path; qosforge does not create missing parent folders for files",
    "EISDIR": "the path is a folder: give a file name",
    "EEXIST": "a file is in the way: remove it or choose another path",
    "ENAMETOOLONG": "use a shorter path",
}


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


#: The staging names of qosforge/files.py: ``.<folder>.qosforge-XXXXXXXX`` (an output folder
#: built beside the real one) and ``.<file>.XXXXXXXX<suffix>`` (a file written atomically).
_STAGED_FOLDER = re.compile(r"(^|/)\.([^/]+)\.qosforge-[A-Za-z0-9_]{8}(?=/|$)")
_STAGED_FILE = re.compile(r"(^|/)\.([^/]+?)\.[A-Za-z0-9_]{8}(\.[^/.]+)?$")


def user_path(path: str) -> str:
    """``path`` as the user named it: qosforge's staging names mapped back to the real ones.

    >>> user_path("/srv/.out.qosforge-bapv9zox/leaf1/.config_db.json.k2j4h1a0.json")
    '/srv/out/leaf1/config_db.json'
    """
    path = _STAGED_FOLDER.sub(r"\1\2", path)
    match = _STAGED_FILE.search(path)
    if match is not None and (match.group(3) is None or match.group(2).endswith(match.group(3))):
        path = path[: match.start()] + match.group(1) + match.group(2)
    return path


def os_error_line(error: OSError) -> str:
    """One line for an operating-system error: the path, the cause and what to do.

    >>> os_error_line(OSError(28, "No space left on device", "out/report.json"))
    'out/report.json: No space left on device (hint: free space on that file system or write elsewhere with -o)'
    """
    import errno

    cause = error.strerror or str(error) or type(error).__name__
    place = user_path(str(error.filename)) if error.filename is not None else None
    name = errno.errorcode.get(error.errno or 0, "")
    text = f"{place}: {cause}" if place is not None else cause
    if error.filename2 is not None:
        text += f" (and {error.filename2})"
    hint = _OS_ERROR_HINTS.get(name)
    return f"{text} (hint: {hint})" if hint else text


class UnitError(QosforgeError):
    """A quantity string that is malformed, ambiguous or physically impossible."""


class ModelInputError(QosforgeError):
    """Inputs outside a model's domain (zero buffer, M < 1, alpha <= 0, ...)."""


class InfeasibleDesignError(QosforgeError):
    """The inputs are valid but the design cannot work (e.g. no headroom left for TLT)."""


class ProfileError(QosforgeError):
    """An unknown vendor profile or a profile file that does not validate."""
