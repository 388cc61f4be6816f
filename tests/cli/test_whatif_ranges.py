"""The calculators refuse what the intent refuses (qosforge/ranges.py): an RTT outside 1 us..10 ms,
a cable over 10 km, a frame under 64 B or a lossless MTU above the port MTU. Before, ``whatif
dctcp --speed 40G --rtt 10s`` answered K = 7.14 GB and ``pfc-headroom --cable 100km`` a headroom."""

from __future__ import annotations

from collections.abc import Callable

import pytest

Run = Callable[..., tuple[int, str, str]]


@pytest.mark.parametrize(("argv", "flag", "message"), [
    (("dctcp", "--speed", "40G", "--rtt", "10s"), "--rtt", "10 s is outside 1 us..10 ms"),
    (("dctcp", "--speed", "40G", "--sweep", "rtt=1us:20ms:3"), "--rtt", "20 ms is outside 1 us..10 ms"),
    (("tbtcp", "--speed", "10G", "--rtt", "500ns"), "--rtt", "500 ns is outside 1 us..10 ms"),
    (("d2tcp", "--remaining", "1MB", "--window", "20kB", "--deadline", "1s", "--rtt", "1s"), "--rtt", "1 s is outside"),
    (("ear", "--speed", "10G", "--base-rtt", "100us", "--delay-threshold", "1s"), "--delay-threshold", "1 s is outside"),
    (("tlt", "--buffer", "12MB", "--transport", "dctcp", "--speed", "40G", "--rtt", "80ms"), "--rtt", "80 ms is outside"),
    (("pfc-headroom", "--speed", "100G", "--cable", "100km"), "--cable", "100 km is outside 0 m..10 km"),
    (("pfc-headroom", "--speed", "100G", "--cable", "40m", "--lossless-mtu", "10"), "--lossless-mtu", "10 B is below 64 B"),
    (("pfc-headroom", "--speed", "100G", "--cable", "40m", "--lossless-mtu", "9216", "--port-mtu", "9100"), "--lossless-mtu",
     "is above --port-mtu"),
])
def test_nonsense_is_refused_at_the_flag(argv: tuple[str, ...], flag: str, message: str, run_cli: Run) -> None:
    code, out, err = run_cli("whatif", *argv)
    assert code == 2 and out == "" and err.startswith(f"error: {flag}: ") and message in err and "Traceback" not in err


def test_the_range_ends_are_accepted(run_cli: Run) -> None:
    assert run_cli("whatif", "dctcp", "--speed", "40G", "--rtt", "10ms")[0] == 0
    assert run_cli("whatif", "pfc-headroom", "--speed", "100G", "--cable", "10km")[0] == 0


@pytest.mark.parametrize(("argv", "hint"), [
    (("dctcp", "--speed", "10G"), "e.g. --rtt 80us"),
    (("dcqcn",), "e.g. --speed 40G"),
    (("ear", "--speed", "10G", "--base-rtt", "10us"), "e.g. --delay-threshold 144us"),
])
def test_a_missing_flag_hint_gives_a_value(argv: tuple[str, ...], hint: str, run_cli: Run) -> None:
    # Before: "e.g. --rtt ...", a literal "..." in the hint.
    code, _, err = run_cli("whatif", *argv)
    assert code == 2 and hint in err and "..." not in err


def test_the_sweepable_names_are_listed_once(run_cli: Run) -> None:
    # Before: "sweep one of: burst, burst, packet, packet, rtt, rtt, speed, speed" (flag and argument names).
    code, _, err = run_cli("whatif", "dctcp", "--speed", "10G", "--rtt", "100us", "--sweep", "foo=1:2:3")
    assert code == 2 and "sweep one of: burst, packet, rtt, speed)" in err
