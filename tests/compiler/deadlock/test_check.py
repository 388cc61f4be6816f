"""compile refuses an intent whose lossless classes can deadlock (docs/architecture.md §5)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest

from qosforge.compiler.compile import compile_intent
from qosforge.compiler.deadlock.check import fabric_cycles
from qosforge.compiler.deadlock.failures import sweep_failures
from qosforge.compiler.deadlock.links import fabric_links
from qosforge.compiler.loader import IntentError, load_intent
from qosforge.compiler.topology import resolve_topology

EXAMPLES = sorted(p for p in (Path(__file__).parents[3] / "examples").glob("*.yaml") if not p.name.endswith(".traffic.yaml"))  # intents, not traffic files


def test_a_lossless_ring_is_refused_with_the_cycle_routes_and_fixes(write_intent: Callable[..., Path], fabrics: SimpleNamespace) -> None:
    path = write_intent(fabrics.ring_intent(4))
    line = next(n for n, text in enumerate(path.read_text().splitlines(), 1) if "lossless: true" in text)
    intent, source_map = load_intent(path)
    with pytest.raises(IntentError) as refused:
        compile_intent(intent, source_map, targets=("sai",))
    error = refused.value
    assert error.place == f"{path}:{line}:48: classes[0].lossless"  # the class's lossless field
    assert error.message.startswith("lossless class 'rdma' (PG 3) can deadlock: PFC buffers form a cycle on switches sw2, sw3, sw4, sw1: "
                                    "sw2:Ethernet12 -> sw3:Ethernet12 -> sw4:Ethernet12 -> sw1:Ethernet12 -> sw2:Ethernet12")
    assert "hosts on sw1 to hosts on sw3 via sw1 > sw2 > sw3 (held at sw2:Ethernet12, waiting on sw2:Ethernet8)" in error.message
    assert "(1 more cycle(s): sw4:Ethernet8 -> sw3:Ethernet8 -> sw2:Ethernet8 -> sw1:Ethernet8 -> sw4:Ethernet8)" in error.message
    assert error.hint is not None
    for fix in ("separate priority", "packets arriving on sw2:Ethernet12", "change the routing", "lossless: false"):
        assert fix in error.hint


def _ring_asns(n: int, same: bool = False, allowas_in: int = 0) -> str:
    """A ring's eBGP routing: each switch its own ASN, or all one ASN (``same``)."""
    asns = ", ".join(f"sw{i + 1}: {65001 if same else 65001 + i}" for i in range(n))
    return f"{{model: ebgp-rfc7938, asn: {{switches: {{{asns}}}}}, allowas_in: {allowas_in}}}"


@pytest.mark.parametrize("routing", ["{model: shortest-path}", _ring_asns(4)], ids=["shortest-path", "ebgp"])
def test_a_lossless_ring_is_refused_under_either_routing_model(
        write_intent: Callable[..., Path], fabrics: SimpleNamespace, routing: str) -> None:
    """Each switch its own ASN: eBGP's routes on a ring are its shortest paths, and they close
    the cycle."""
    intent, source_map = load_intent(write_intent(fabrics.ring_intent(4, routing=routing)))
    cycle = "can deadlock: PFC buffers form a cycle on switches sw2, sw3, sw4, sw1"
    with pytest.raises(IntentError, match=cycle):
        compile_intent(intent, source_map, targets=("sai",))


def test_an_asn_plan_that_cuts_hosts_off_is_refused_unless_allowas_in_lets_the_routes_in(
        write_intent: Callable[..., Path], fabrics: SimpleNamespace) -> None:
    """A lossy ring whose switches all share one ASN: each drops the others' prefixes (RFC 4271
    §9.1.2); allowas_in 1 (RFC 7938 §5.2.2, leaves reusing an ASN) lets a neighbour's route in
    but not one two hops away (the ASN twice on its path); allowas_in 2 routes the whole ring."""

    def compiled(allowas_in: int) -> int:
        routing = _ring_asns(4, same=True, allowas_in=allowas_in)
        intent, source_map = load_intent(write_intent(fabrics.ring_intent(4, lossless=False, routing=routing)))
        return len(compile_intent(intent, source_map, targets=("sai",)).switches)

    with pytest.raises(IntentError, match="under eBGP sw2 has no route to the hosts of sw1 on the healthy") as refused:
        compiled(0)
    assert refused.value.place.endswith("topology.routing.asn") and "allowas_in" in (refused.value.hint or "")
    with pytest.raises(IntentError, match="under eBGP sw3 has no route to the hosts of sw1"):
        compiled(1)
    assert compiled(2) == 4


@pytest.mark.parametrize(("size", "lossless"), [(4, False), (3, True)])
def test_a_lossy_ring_or_a_triangle_compiles(write_intent: Callable[..., Path], fabrics: SimpleNamespace, size: int, lossless: bool) -> None:
    intent, source_map = load_intent(write_intent(fabrics.ring_intent(size, lossless)))
    fabric = compile_intent(intent, source_map, targets=("sai",))
    assert [s.name for s in fabric.switches] == [f"sw{i + 1}" for i in range(size)]


def test_a_subset_compile_still_checks_the_whole_fabric(write_intent: Callable[..., Path], fabrics: SimpleNamespace) -> None:
    intent, source_map = load_intent(write_intent(fabrics.ring_intent(5)))
    with pytest.raises(IntentError, match="cycle on switches sw2, sw3, sw4, sw5, sw1"):
        compile_intent(intent, source_map, switches=("sw1",), targets=("sai",))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_the_examples_are_deadlock_free(path: Path) -> None:
    intent, source_map = load_intent(path)
    assert fabric_cycles(fabric_links(resolve_topology(intent, source_map))) == ()


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_the_examples_stay_deadlock_free_under_any_single_link_failure(path: Path) -> None:
    intent, source_map = load_intent(path)
    result = sweep_failures(fabric_links(resolve_topology(intent, source_map)), 1)
    assert result.complete and result.deadlocks == ()
    # mixed-fabric's single spine and dctcp-fig17's one T1-T2 link make a failure cut switches off
    # (reported, not a deadlock); every other example has a second path.
    assert bool(result.partitions) == (path.stem in ("mixed-fabric", "dctcp-fig17"))
