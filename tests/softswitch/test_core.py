"""The ahead-of-time event core: its argument types match what the builder makes, it is the one a
run uses when it is current, and a run through it imports no numba."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from qosforge.softswitch.engine import digest_word
from qosforge.softswitch.engine import layout as L
from qosforge.softswitch.engine.build import build_world
from qosforge.softswitch.engine.state import numba_signature
from qosforge.softswitch.helper.single_switch import DumbbellSpec, dumbbell


def test_the_world_the_builder_makes_is_the_one_the_core_was_compiled_for() -> None:
    config, flows, run = dumbbell(DumbbellSpec(flows=3, transport="dctcp", bandwidth_bps=10e9, rtt_s=1e-4, buffer_bytes=150_000, ecn_threshold_bytes=30_000))
    world = build_world(config, flows, run)
    signature = numba_signature()
    assert len(world) == L.W_LEN == len(signature)
    for index, array in enumerate(world):
        dtype, ndim = signature[index]
        assert (array.dtype, array.ndim) == (np.dtype(dtype), ndim), index
        assert array.flags.c_contiguous, index


def test_an_installed_checkout_runs_the_ahead_of_time_core() -> None:
    from qosforge.softswitch.engine import _core  # type: ignore[attr-defined]  # built by pip install

    if _core.core_digest() != digest_word():
        pytest.skip("the engine sources changed since _core was built: run `pip install -e .` again")
    from qosforge.softswitch.engine.core import kernel

    assert kernel().ahead_of_time


def test_a_dumbbell_simulation_imports_no_numba_and_no_pydantic() -> None:
    from qosforge.softswitch.engine import _core  # type: ignore[attr-defined]

    if _core.core_digest() != digest_word():
        pytest.skip("the engine sources changed since _core was built")
    script = (
        "import sys\n"
        "from qosforge.softswitch.helper.single_switch import DumbbellSpec, dumbbell\n"
        "from qosforge.softswitch.simulation import simulate\n"
        "config, flows, run = dumbbell(DumbbellSpec(flows=2, transport='dctcp', bandwidth_bps=1e9, rtt_s=1e-4, buffer_bytes=150000,"
        " ecn_threshold_bytes=30000, duration_s=0.002, warmup_s=0.0))\n"
        "result = simulate(config, flows, run)\n"
        "print(result.packet_events > 0, 'numba' in sys.modules, 'pydantic' in sys.modules, 'qosforge.backends.sai' in sys.modules)\n"
    )
    output = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout.split()
    # Nor the SAI backend and its vendor-profile schemas: the flag-configured dumbbell needs neither.
    assert output == ["True", "False", "False", "False"]


def test_the_jit_fallback_announces_its_first_compile(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from pathlib import Path

    from qosforge.softswitch.engine import core

    monkeypatch.setattr(Path, "glob", lambda self, pattern: iter(()))  # no cached kernel anywhere
    monkeypatch.setattr(core, "ensure_fresh_cache", lambda: None)
    fallback = core.kernel(allow_ahead_of_time=False)
    assert not fallback.ahead_of_time and callable(fallback.run_kernel)
    err = capsys.readouterr().err
    assert "compiling the software switch's event core" in err and err.count("\n") == 1
