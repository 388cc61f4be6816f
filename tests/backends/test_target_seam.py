"""A target added from this one module, touching no other source file (docs/extending/target.md):
registered, it compiles end to end, its value error points at the intent line behind the value,
and the phases it declares absent are refused by name (exit 2) with the targets that have them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from qosforge.backends.phases import RenderValueError
from qosforge.backends.registry import RenderedFile, Target, register_target, unregister_target
from qosforge.cli import main
from qosforge.errors import EXIT_BAD_INPUT
from qosforge.ir import SwitchIR

MIXED = Path(__file__).resolve().parents[2] / "examples" / "mixed-fabric.yaml"
#: The toy format writes a WRED threshold as an unsigned 20-bit byte count.
TOY_MAX_BYTES = 2**20 - 1


def _render(switches: tuple[SwitchIR, ...]) -> Iterator[RenderedFile]:
    for switch in switches:
        lines = []
        for w, wred in enumerate(switch.wred_profiles):
            for c, curve in enumerate(wred.curves):
                for attribute in ("min_bytes", "max_bytes"):
                    value = round(getattr(curve, attribute).value)
                    if value > TOY_MAX_BYTES:
                        raise RenderValueError(switch.name, ("wred_profiles", w, "curves", c, attribute),
                                               f"switch '{switch.name}': toy WRED {wred.name} {curve.color} {attribute} {value} B is over {TOY_MAX_BYTES}",
                                               hint="the toy format counts bytes in 20 bits")
                    lines.append(f"{wred.name} {curve.color} {attribute} {value}")
        yield RenderedFile(switch.name, "toy.txt", "\n".join(lines) + "\n")


TOY = Target(name="toy", description="a test's target: WRED thresholds as text", file_names=("toy.txt",),
             view=lambda switch, approximations: switch, render=_render)


@pytest.fixture
def toy() -> Iterator[Target]:
    register_target(TOY)
    yield TOY
    unregister_target(TOY.name)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exited:
        main(list(argv))
    captured = capsys.readouterr()
    return int(exited.value.code or 0), captured.out, captured.err


def test_a_registered_target_compiles_end_to_end(toy: Target, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "compile", str(MIXED), "--target", "toy", "-o", str(tmp_path / "out"), "-q")
    assert code == 0, err
    text = (tmp_path / "out" / "leaf1" / "toy.txt").read_text()
    # storage's DCQCN K_max is the intent's 500kB (mixed-fabric.yaml), rendered in bytes
    assert text.splitlines()[-2:] == ["storage_100G green min_bytes 12500", "storage_100G green max_bytes 500000"]
    assert not (tmp_path / "out" / "leaf1" / "config_db.json").exists()


def test_its_value_error_points_at_the_intent_line(toy: Target, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    intent = tmp_path / "big-kmax.yaml"
    intent.write_text(MIXED.read_text().replace("kmax: 500kB", "kmax: 2MB"))
    line = next(n for n, text in enumerate(intent.read_text().splitlines(), 1) if "kmax: 2MB" in text)
    code, _, err = _run(capsys, "compile", str(intent), "--target", "toy", "-o", str(tmp_path / "out"))
    assert code == EXIT_BAD_INPUT, err
    [shown] = err.strip().splitlines()
    assert shown.startswith(f"error: {intent}:{line}:") and ": classes[0].dcqcn.kmax: " in shown
    assert "max_bytes 2000000 B is over 1048575" in shown and "(hint: the toy format counts bytes in 20 bits)" in shown
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(("argv", "expected"), [
    (("explain", str(MIXED), "--switch", "leaf1", "--target", "toy", "--path", "x"),
     "--target: target 'toy' does not support explain (hint: targets that support it: sonic, host)"),
    (("lint", "--target", "toy", str(MIXED)), "--target: target 'toy' does not support lint (hint: targets that support it: sonic)"),
    (("push", "--target", "toy", str(MIXED), "--switch", "leaf1", "--dry-run"),
     "--target: target 'toy' does not support push and diff (hint: targets that support it: openconfig)"),
    (("diff", "--target", "toy", str(MIXED), "--switch", "leaf1", "--address", "127.0.0.1:9"),
     "--target: target 'toy' does not support push and diff (hint: targets that support it: openconfig)"),
])
def test_absent_phases_are_refused_by_name(toy: Target, capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], expected: str) -> None:
    code, _, err = _run(capsys, *argv)
    assert code == EXIT_BAD_INPUT and err.strip() == f"error: {expected}"


def test_base_without_a_patching_target_is_refused(toy: Target, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "compile", str(MIXED), "--target", "toy", "-o", str(tmp_path / "out"), "--base", str(tmp_path))
    assert code == EXIT_BAD_INPUT and "--base needs the sonic target (a GCU patch moves a SONiC config_db)" in err
    assert not (tmp_path / "out").exists()
