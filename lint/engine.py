"""Lint files: load, pick the ASIC and intent, run the rules, apply ``--fix``.

:class:`Linter` is the library entry point (the CLI is a thin layer over it). It never raises for
a bad config file: such a file becomes an :class:`~qosforge.lint.findings.UnusableInput` (exit
code 2) and the other files are still linted. Bad *options* (an unknown profile, an intent that
does not compile) raise :class:`~qosforge.errors.QosforgeError` before any file is read.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from qosforge.errors import QosforgeError
from qosforge.lint.aggregate import aggregate
from qosforge.lint.context import KNOWN_TABLES, LintContext, RunCache
from qosforge.lint.findings import Finding, Skipped, UnusableInput, sort_key
from qosforge.lint.fix import Fix, apply_fixes, render_fixed
from qosforge.lint.load import (
    LoadedConfig,
    UnusableInputError,
    load_config,
    read_bytes,
    require_sonic_tables,
)
from qosforge.lint.merge import MergedConfig, merge_configs
from qosforge.lint.project import LintSettings
from qosforge.lint.rules import REGISTRY, RULE_INFO, rules_needing, run_rules, vendor_skips
from qosforge.lint.rules.schema import override_findings

if TYPE_CHECKING:  # the intent and vendor-profile machinery (pydantic) loads only when asked for
    from qosforge.backends.host.document import HostSettingsDocument
    from qosforge.lint.intent import IntentCatalogue, SwitchIntent
    from qosforge.vendor_profiles.schema import VendorProfile

#: Tables a fragment may lack, and the rules (or parts of rules) that then do not run on it.
FRAGMENT_NEEDS: dict[str, tuple[str, ...]] = {
    "PORT_QOS_MAP": ("lossless-chain", "pfc-priority-lossy-pg", "lossless-queue-without-pfc", "map-unbound",
                     "traditional-pg-overwrite"),
    "BUFFER_PG": ("lossless-chain", "traditional-pg-overwrite"),
    "CABLE_LENGTH": ("lossless-chain",),
    "PORT": ("dangling-reference", "port-admin-status"),
}


@dataclass
class FileReport:
    """The outcome for one input file."""

    file: str
    findings: list[Finding] = field(default_factory=list)
    unusable: UnusableInput | None = None
    fixes: list[Fix] = field(default_factory=list)
    fixed_path: str | None = None
    fixed_text: str | None = None
    """The corrected file, to be written by the caller once every file was processed."""


@dataclass
class RunState:
    """The run-summary facts a :class:`Linter` gathers while it lints files."""

    file_skips: dict[tuple[tuple[str, ...], str], set[str]]
    """(rules, reason) -> the files on which those rules did not run."""
    profiles_used: set[str]


class Linter:
    """Lints config_db files against one optional vendor profile and one optional intent."""

    def __init__(self, *, profile: str | None = None, intent: Path | None = None, switch: str | None = None,
                 disable: frozenset[str] = frozenset(), settings: LintSettings | None = None,
                 hosts: Path | None = None, target: str = "sonic") -> None:
        from qosforge.backends.registry import require_phase

        #: What the files are and how they read back: the target's lint phase (backends/phases.py).
        self.reader = require_phase(target, "lint").lint
        self.hosts: HostSettingsDocument | None = None
        if hosts is not None:
            from qosforge.backends.host.document import load_host_document

            self.hosts = load_host_document(hosts)
        self.profile: VendorProfile | None = _load_profile(profile) if profile is not None else None
        self.catalogue: IntentCatalogue | None = None
        if intent is not None:
            from qosforge.lint.intent import IntentCatalogue

            self.catalogue = IntentCatalogue(intent)
        unknown = sorted(disable - set(REGISTRY))
        if unknown:
            raise QosforgeError(f"unknown rule id(s) {', '.join(unknown)}", place="--disable",
                                hint="see qosforge lint --list-rules")
        self.disable = disable
        self.settings = settings or LintSettings()
        self._file_skips: dict[tuple[tuple[str, ...], str], set[str]] = {}
        self.switch = switch
        if switch is not None and self.catalogue is None:
            raise QosforgeError("--switch names a switch of an intent", place="--switch",
                                hint="give --intent FILE with it")
        if self.profile is not None and self.catalogue is not None:
            self._check_profile_matches_intent(self.profile.name, self.catalogue, switch)
        self.cache = RunCache()
        self.profiles_used: set[str] = set()
        """Names of the vendor profiles files were linted against (from --profile or the intent)."""

    @staticmethod
    def _check_profile_matches_intent(profile: str, catalogue: IntentCatalogue, switch: str | None) -> None:
        """--profile with --intent: the intent names each switch's ASIC, so a different --profile
        would check capacity and headroom against one ASIC and transports against another."""
        profiles = catalogue.switch_profiles(switch)
        other = sorted(set(profiles.values()) - {profile})
        if other:
            shown = ", ".join(f"{name}: {p}" for name, p in sorted(profiles.items()) if p != profile)[:300]
            raise QosforgeError(
                f"--profile {profile} contradicts the intent, which gives {shown}", place="--profile",
                hint="drop --profile (the intent names the ASIC of every switch), or fix the intent's profile")

    @property
    def skipped(self) -> list[Skipped]:
        """Rules that do not run in this configuration, and why (shown in every summary)."""
        skipped: list[Skipped] = []
        if self.profile is None and self.catalogue is None:
            skipped.append(Skipped(rules_needing("profile"), "no --profile (and no --intent naming the ASIC)"))
        if self.catalogue is None:
            skipped.append(Skipped(rules_needing("intent"), "no --intent"))
        for (rules, reason), files in sorted(self._file_skips.items()):
            shown = ", ".join(sorted(files)[:3]) + (f" (+{len(files) - 3} more)" if len(files) > 3 else "")
            skipped.append(Skipped(rules, f"{reason}: {shown}"))
        return skipped

    def take_run_state(self) -> RunState:
        """What linting files added to the run summary since the last call (skipped rules per
        file, profiles used), reset: a worker process hands it back to the parent per file."""
        state = RunState(self._file_skips, self.profiles_used)
        self._file_skips, self.profiles_used = {}, set()
        return state

    def merge_run_state(self, state: RunState) -> None:
        for reason, files in state.file_skips.items():
            self._file_skips.setdefault(reason, set()).update(files)
        self.profiles_used |= state.profiles_used

    def _note_skips(self, ctx: LintContext, file: str, *, merged: bool = False) -> None:
        for table, rules in FRAGMENT_NEEDS.items():
            if table not in ctx.tables:
                reason = (f"(in part) the merged config has no {table}" if merged else
                          f"(in part) the file has no {table} (a fragment; lint the merged config with --merge)")
                self._file_skips.setdefault((rules, reason), set()).add(file)
        for item in vendor_skips(ctx):
            self._file_skips.setdefault((item.rules, item.reason), set()).add(file)

    # ------------------------------------------------------------------ per file

    def _switch_context(self, path: Path | None) -> tuple[VendorProfile | None, SwitchIntent | None]:
        switch = None
        profile = self.profile
        if self.catalogue is not None:
            name = self.catalogue.switch_for(path or Path("config_db.json"), self.switch)
            switch = self.catalogue.for_switch(name)
            if profile is None:
                profile = self.cache.get(("profile", switch.profile), lambda: _load_profile(switch.profile))
        if profile is not None:
            self.profiles_used.add(profile.name)
        return profile, switch

    def lint_merged(self, paths: list[Path]) -> FileReport:
        """``paths`` linted as the one config sonic-cfggen merges from them (--merge)."""
        loaded: list[LoadedConfig] = []
        for path in paths:
            try:
                loaded.append(load_config(read_bytes(path), str(path), KNOWN_TABLES, part_of_merge=True))
            except QosforgeError as error:
                return FileReport(file=str(path), unusable=UnusableInput(str(path), error.one_line()))
        merged = merge_configs(loaded)
        report = FileReport(file=merged.loaded.file)
        try:
            require_sonic_tables(merged.loaded.tables, merged.loaded.file)
        except QosforgeError as error:
            report.unusable = UnusableInput(report.file, error.one_line())
            return report
        try:
            report.findings = self.lint_loaded(merged.loaded, path=paths[-1], merged=merged)
        except QosforgeError as error:
            report.unusable = UnusableInput(report.file, error.one_line())
        return report

    def lint_loaded(self, loaded: LoadedConfig, *, path: Path | None = None,
                    merged: MergedConfig | None = None) -> list[Finding]:
        profile, switch = self._switch_context(path)
        if self.hosts is not None and switch is not None and self.hosts.attachments:
            attached = sorted({a.switch for a in self.hosts.attachments})
            if switch.switch not in attached:
                # Port names repeat across switches (Ethernet0 is on every one): without this, another
                # fabric's hosts were checked against this switch's ports of the same names.
                raise QosforgeError(
                    f"the document's hosts ({self.hosts.host_kind}) attach to {', '.join(attached)}, not to "
                    f"{switch.switch}, the intent's switch for this file", place="--hosts",
                    hint=f"give the host settings of {switch.switch}'s hosts (compile --target host writes hosts/<kind>/"
                         "host_settings.json with their attachments), or lint the config of a switch it names")
        context = LintContext(loaded, profile=profile, intent=switch, rules=RULE_INFO, cache=self.cache, merged=merged, hosts=self.hosts)
        context.reader = self.reader
        disabled, severities = self.settings.for_file(loaded.file)
        disabled |= self.disable
        findings = [f for f in run_rules(context, disabled) if f.rule not in disabled]
        if merged is not None and "merge-override" not in disabled:
            findings.extend(override_findings(context, merged))
        self._note_skips(context, loaded.file, merged=merged is not None)
        if severities:
            findings = [replace(f, severity=severities[f.rule]) if f.rule in severities else f for f in findings]
        if merged is None and any(REGISTRY[f.rule].fixable for f in findings if f.rule in REGISTRY):
            _, fixes = apply_fixes(loaded)
            addressed = {(fix.rule, fix.table, fix.key) for fix in fixes}
            findings = [replace(f, fixable=True) if (f.rule, f.table, f.key) in addressed else f for f in findings]
        return aggregate(sorted(findings, key=sort_key))

    def lint_bytes(self, data: bytes, file: str, *, path: Path | None = None, fix: bool = False,
                   fixed_path: Path | None = None) -> FileReport:
        report = FileReport(file=file)
        try:
            loaded = load_config(data, file, KNOWN_TABLES)
            report.findings = self.lint_loaded(loaded, path=path)
        except QosforgeError as error:
            report.unusable = UnusableInput(file, error.one_line())
            return report
        if fix:
            self._fix(report, loaded, path, fixed_path)
        return report

    def lint_path(self, path: Path, *, fix: bool = False, fixed_path: Path | None = None) -> FileReport:
        try:
            data = read_bytes(path)
        except UnusableInputError as error:
            return FileReport(file=str(path), unusable=UnusableInput(str(path), error.one_line()))
        return self.lint_bytes(data, str(path), path=path, fix=fix, fixed_path=fixed_path)

    def _fix(self, report: FileReport, loaded: LoadedConfig, path: Path | None, fixed_path: Path | None) -> None:
        if loaded.duplicates:
            # json.load keeps the last occurrence; which one the operator meant is not mechanical,
            # and writing either would drop the other's data without a word.
            first = loaded.duplicates[0]
            where = "|".join((*first.path, first.key))
            report.unusable = UnusableInput(
                report.file, f"{report.file}: --fix refuses: {where} is given {first.count} times "
                f"({len(loaded.duplicates)} duplicated key(s)); keeping one would silently drop the other's "
                "data (hint: remove the duplicates by hand, then run --fix again)")
            return
        data, fixes = apply_fixes(loaded)
        destination = fixed_path or Path(f"{path or report.file}.fixed.json")
        if not fixes and fixed_path is None:
            return
        text = render_fixed(data, loaded.text)
        report.fixes = fixes
        report.fixed_path = str(destination)
        report.fixed_text = text
        # Report what is left in the corrected file, located in it.
        try:
            relinted = load_config(text.encode("utf-8"), str(destination), KNOWN_TABLES)
            report.findings = self.lint_loaded(relinted, path=path)
        except QosforgeError as error:  # the fixer produced something unusable: a qosforge bug
            report.unusable = UnusableInput(str(destination), f"--fix produced an unusable file: {error.one_line()}")
            report.fixed_text = None


def _load_profile(name: str) -> VendorProfile:
    from qosforge.vendor_profiles import load_vendor_profile

    return load_vendor_profile(name)


__all__ = ["FRAGMENT_NEEDS", "FileReport", "Linter", "RunState"]
