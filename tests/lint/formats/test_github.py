"""--format github: workflow annotations, escaped as the runner requires."""

from __future__ import annotations

from qosforge.lint.findings import Finding, Severity, UnusableInput
from qosforge.lint.formats import Report, github


def test_github_annotations_are_escaped() -> None:
    finding = Finding("bad-key", Severity.WARNING, "dir,x/a:b.json", "T", "k", "f", "50% done\nnext", "h",
                      line=3, column=4)
    report = Report(findings=[finding], files=["a"], unusable=[UnusableInput("u.json", "u: not JSON")], skipped=[],
                    fail_on=Severity.ERROR)
    first, second = github.render(report).splitlines()
    assert first.startswith("::warning file=dir%2Cx/a%3Ab.json,line=3,col=4,title=qosforge lint [bad-key] T|k.f::")
    assert first.endswith("::50% done\nnext (fix: h)".replace("%", "%25").replace("\n", "%0A"))
    assert second == "::error file=u.json,title=qosforge lint::u: not JSON"
