"""``qosforge.api.compile``: an intent file in, the folder written and its report out (no click:
test_no_cli.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path

import pytest

from qosforge.api.compile import (
    CompileRequest,
    CompileUsageError,
    compile_fabric,
    compile_to_folder,
)
from qosforge.api.reporting import StderrReporter
from qosforge.cli import main
from qosforge.errors import QosforgeError
from qosforge.vendor_profiles import load_vendor_profile

ROOT = Path(__file__).resolve().parents[2]
ROCE = ROOT / "examples" / "roce-pod.yaml"


class _Notes:
    """A reporter that keeps its notes (what the CLI prints on stderr)."""

    def __init__(self) -> None:
        self.notes: list[str] = []

    def note(self, text: str) -> None:
        self.notes.append(text)

    def progress(self, description: str) -> AbstractContextManager[object]:
        return nullcontext()

    def engine_starting(self) -> None:
        return None


def test_the_folder_holds_what_the_report_says(tmp_path: Path) -> None:
    counted: list[int] = []

    @contextmanager
    def rendering(total: int) -> Iterator[object]:
        counted.append(total)
        yield lambda: counted.append(-1)

    outcome = compile_to_folder(CompileRequest(str(ROCE), str(tmp_path / "out"), targets=("sonic", "sai")), StderrReporter(), rendering)
    report = outcome.report
    assert report["fabric"] == "roce-pod" and report["targets"] == ["sonic", "sai"]
    assert json.loads((tmp_path / "out" / "report.json").read_text()) == report
    leaf1 = next(switch for switch in report["switches"] if switch["name"] == "leaf1")
    # The switch's buffer is its vendor profile's, and each pool the report sizes is the size config_db holds.
    assert leaf1["buffer"]["value"] == load_vendor_profile(leaf1["vendor_profile"]).buffer_bytes.value
    config_db = json.loads((tmp_path / "out" / "leaf1" / "config_db.json").read_text())
    for pool in leaf1["pools"]:
        assert int(config_db["BUFFER_POOL"][pool["name"]]["size"]) == pool["size"]["value"]
    switches = [switch.name for switch in outcome.fabric.switches]
    # sonic renders config_db.json, sai sai.json and sairedis.rec: 3 files per switch, each counted once.
    assert counted[0] == 3 * len(switches) and counted.count(-1) == counted[0]
    assert sorted(path.name for path in (tmp_path / "out" / "leaf1").iterdir()) == ["config_db.json", "sai.json", "sairedis.rec"]


def test_the_cli_writes_and_prints_what_the_api_does(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["compile", str(ROCE), "-o", str(tmp_path / "cli"), "--format", "json"])
    assert exited.value.code == 0
    printed = json.loads(capsys.readouterr().out)
    outcome = compile_to_folder(CompileRequest(str(ROCE), str(tmp_path / "api")), StderrReporter())
    assert printed == outcome.report
    cli_files = sorted(p.relative_to(tmp_path / "cli") for p in (tmp_path / "cli").rglob("*") if p.is_file())
    api_files = sorted(p.relative_to(tmp_path / "api") for p in (tmp_path / "api").rglob("*") if p.is_file())
    assert cli_files == api_files and len(cli_files) > 10
    for name in cli_files:
        cli_text, api_text = (tmp_path / "cli" / name).read_text(), (tmp_path / "api" / name).read_text()
        assert _comparable(name.name, cli_text) == _comparable(name.name, api_text), name


def _comparable(name: str, text: str) -> object:
    """A recording's lines start with the wall-clock time it was made (sairedis' format), so its
    records are compared, and the manifest's hash of it is left out; every other file as it is."""
    if name == "sairedis.rec":
        return [line.split("|", 1)[1] for line in text.splitlines()]
    if name == ".qosforge-manifest.json":
        manifest = json.loads(text)
        return [{key: value for key, value in entry.items() if key != "sha256" or not entry["path"].endswith(".rec")} for entry in manifest["files"]]
    return text


def test_a_hand_edited_file_replaced_is_a_note(tmp_path: Path) -> None:
    request = CompileRequest(str(ROCE), str(tmp_path / "out"), targets=("sonic",))
    compile_to_folder(request, StderrReporter())
    edited = tmp_path / "out" / "leaf1" / "config_db.json"
    edited.write_text(edited.read_text() + " ")
    notes = _Notes()
    compile_to_folder(request, notes)
    assert f"warning: replaced {edited}, which was changed by hand since qosforge wrote it" in notes.notes


@pytest.mark.parametrize(("request_", "error", "message"), [
    (CompileRequest(str(ROCE), "OUT", targets=("sai",), base_path="/nonexistent"), CompileUsageError,
     "--base needs the sonic target (a GCU patch moves a SONiC config_db)"),
    (CompileRequest(str(ROCE), "OUT", approximations=("bogus",)), QosforgeError,
     "--accept-approximation: 'bogus' is not an approximation any target offers"),
    (CompileRequest(str(ROCE), "OUT", switches=("nosuch",)), QosforgeError, "--switch: no switch named 'nosuch'"),
    (CompileRequest(str(ROCE), "OUT", targets=("eos",)), QosforgeError, "--target: target 'eos' is not available"),
    (CompileRequest(str(ROOT / "nosuch.yaml"), "OUT"), QosforgeError, ""),
])
def test_a_refused_request_writes_nothing(tmp_path: Path, request_: CompileRequest, error: type[Exception], message: str) -> None:
    out = tmp_path / "out"
    request = CompileRequest(**{**request_.__dict__, "output_dir": str(out)})
    with pytest.raises(error) as caught:
        compile_to_folder(request, StderrReporter())
    assert str(caught.value).startswith(message) and not out.exists()


def test_an_output_path_that_is_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "out").write_text("x")
    with pytest.raises(QosforgeError, match="is a file, not a folder"):
        compile_to_folder(CompileRequest(str(ROCE), str(tmp_path / "out")), StderrReporter())


def test_compile_fabric_compiles_in_memory_only(tmp_path: Path) -> None:
    compiled = compile_fabric(str(ROCE), switches=("leaf1",), targets=("sonic",))
    assert [switch.name for switch in compiled.fabric.switches] == ["leaf1"] and compiled.fabric.targets == ("sonic",)
    assert compiled.intent.metadata.name == "roce-pod" and compiled.source_map.file == str(ROCE)
