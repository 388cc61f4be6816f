"""compile refuses what the ASIC or the model cannot do (new-operator trial defects).

Each test builds an intent the trial found compiling into a config the switch cannot apply, and
asserts the one-line error names the intent field (file:line:col) and the numbers that decide it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from qosforge.compiler.compile import compile_intent
from qosforge.compiler.loader import IntentError, load_intent

Writer = Callable[..., Path]
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def compile_file(path: Path):  # type: ignore[no-untyped-def]
    intent, source_map = load_intent(path)
    return compile_intent(intent, source_map)


def _example(name: str, old: str, new: str, write_intent: Writer) -> Path:
    text = (EXAMPLES / name).read_text()
    assert old in text, f"{name} no longer contains {old!r}"
    return write_intent(text.replace(old, new, 1), name=name)


def _error(path: Path) -> str:
    with pytest.raises(IntentError) as caught:
        compile_file(path)
    return caught.value.one_line()


@pytest.mark.parametrize(("alpha", "exponent"), [("16", 4), ("0.00390625", -8)])
def test_alpha_outside_the_asics_dynamic_th_range(write_intent: Writer, base_intent: str, alpha: str, exponent: int) -> None:
    """Trident II takes dynamic_th -7..3 (OCP SAI brcm_sai_common.c); SONiC's YANG allows -8..7."""
    path = write_intent(base_intent + f"design: {{alpha: {alpha}}}\n")
    message = _error(path)
    assert f"{path}:" in message and "design.alpha" in message
    assert f"needs dynamic_th {exponent}, outside -7..3, the range broadcom-trident2 accepts" in message
    assert "1/128, 1/64, 1/32, ..., 8 (dynamic_th -7..3)" in message


def test_alphas_inside_the_range_compile(write_intent: Writer, base_intent: str) -> None:
    for alpha, exponent in (("0.0078125", -7), ("8", 3)):
        switch = compile_file(write_intent(base_intent + f"design: {{alpha: {alpha}}}\n", name=f"a{exponent}.yaml")).switches[0]
        assert {p.dynamic_th.value for p in switch.buffer_profiles if p.dynamic_th is not None} == {exponent}


@pytest.mark.parametrize(("alpha", "meaning"), [
    ("0.00390625", "reads as alpha = 0: the queue gets no shared buffer"),
    ("128", "reads as alpha = infinity"),
])
def test_spectrum_range_ends_mean_something_else(write_intent: Writer, alpha: str, meaning: str) -> None:
    """Mellanox SAI: -8 is alpha 0, 7 is infinity (mlnx_sai_buffer.c sai_buffer_alpha_bounds_t)."""
    path = _example("roce-pod.yaml", "design:\n", f"design:\n  alpha: {alpha}\n", write_intent)
    message = _error(path)
    assert "design.alpha" in message and meaning in message and "mellanox-spectrum-2" in message
    assert "1/128, 1/64, 1/32, ..., 64 (dynamic_th -7..6)" in message


def test_a_headroom_input_out_of_range_names_its_design_field(write_intent: Writer) -> None:
    path = _example("roce-pod.yaml", "  lossless_mtu: 1024B", "  lossless_mtu: 5MB", write_intent)
    message = _error(path)
    assert "design.lossless_mtu" in message and "leaf_profile" not in message
    assert "5e+06 B is above port_mtu 9100 B" in message


@pytest.mark.parametrize("latency", ["1ms"])
def test_ecn_threshold_above_the_queue_limit_is_refused_at_link_latency(write_intent: Writer, latency: str) -> None:
    """DCTCP K = C·RTT/7 grows with the latency; a queue holds at most alpha·B/(1+M·alpha) (TLT §4.2):
    the same limit lint's ecn-above-queue-limit reports (compiler/queue_limits.py). 10s used to be exit
    70; the schema now refuses it (compiler/bounds.py, test_intent.py)."""
    path = _example("roce-pod.yaml", "link_latency: 1us", f"link_latency: {latency}", write_intent)
    message = _error(path)
    assert "topology.leaf_spine.link_latency" in message and "class 'tcp' at 100G" in message
    assert "the queue holds at most 6.626 MB (alpha·B/(1+M·alpha) with alpha = 2^0" in message and "M = 4" in message


@pytest.mark.parametrize(("transport", "limit_text"), [
    # lossless on Spectrum-2: egress_lossless_profile dynamic_th 7, alpha infinity (SONiC's Mellanox layout): B/M
    ("dcqcn", "(B/M, as alpha = infinity for dynamic_th 7; B = 33.13 MB (egress_lossless_pool)"),
    ("irn", "6.868 MB (alpha·B/(1+M·alpha) with alpha = 2^0"),  # lossy: the dynamic-threshold share
])
def test_dcqcn_kmax_above_the_queue_limit_is_refused_at_kmax(write_intent: Writer, transport: str, limit_text: str) -> None:
    """K_min reachable, K_max not: marking never reaches P_max (DCQCN §5); compile used to accept it."""
    text = (EXAMPLES / "roce-pod.yaml").read_text().replace("    weight: 60\n", "    weight: 60\n    dcqcn: {kmax: 40MB}\n", 1)
    if transport == "irn":
        text = text.replace("transport: dcqcn\n    dscp: [26]\n    lossless: true\n", "transport: irn\n    dscp: [26]\n", 1)
    message = _error(write_intent(text))
    assert "classes[0].dcqcn.kmax" in message and "reaches its full probability at 40 MB" in message
    assert limit_text in message and "then the queue tail-drops" in message and "dcqcn.kmax" in message
