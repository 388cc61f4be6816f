"""The rendered sysctl.d file applied for real: ``sysctl -p`` inside a network namespace the test
creates (``unshare -n``), then every key read back in the same namespace. Both keys are per
namespace (Linux Documentation/networking/ip-sysctl.rst), so the host's own settings are never
touched. Needs root (as here and in CI); skipped only where a namespace cannot be created.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from qosforge.backends.registry import get_target
from qosforge.compiler.compile import compile_intent
from qosforge.compiler.loader import load_intent

ROOT = Path(__file__).resolve().parents[3]


def _can_unshare() -> str | None:
    if shutil.which("unshare") is None or shutil.which("sysctl") is None:
        return "unshare(1) or sysctl(8) is not installed"
    probe = subprocess.run(["unshare", "-n", "true"], capture_output=True, text=True, check=False)
    return None if probe.returncode == 0 else f"cannot create a network namespace: {probe.stderr.strip()}"


def _available_congestion_controls() -> set[str]:
    return set(Path("/proc/sys/net/ipv4/tcp_available_congestion_control").read_text().split())


@pytest.mark.parametrize("example", ["roce-pod", "tlt-simulation", "tbtcp-testbed"])
def test_sysctl_file_applies_in_a_namespace(example: str, tmp_path: Path) -> None:
    reason = _can_unshare()
    if reason is not None:
        pytest.skip(reason)
    intent, source_map = load_intent(ROOT / "examples" / f"{example}.yaml")
    fabric = compile_intent(intent, source_map, targets=("host",))
    text = next(item.text for item in get_target("host").render(fabric.for_target("host")) if item.file_name == "99-qosforge.conf")
    wanted = dict(line.split(" = ", 1) for line in text.splitlines() if line and not line.startswith("#"))
    assert wanted, "every example has an ECN-marked TCP class"
    outside = Path("/proc/sys/net/ipv4/tcp_ecn").read_text()
    path = tmp_path / "99-qosforge.conf"
    path.write_text(text)
    keys = " ".join(wanted)
    script = f'sysctl -p "{path}"; echo "rc=$?"; for key in {keys}; do echo "$key=$(sysctl -n "$key")"; done'
    run = subprocess.run(["unshare", "-n", "sh", "-c", script], capture_output=True, text=True, check=False, timeout=30)
    lines = run.stdout.splitlines()
    read_back = dict(line.split("=", 1) for line in lines if not line.startswith("rc=") and "=" in line and " = " not in line)
    missing_cc = wanted.get("net.ipv4.tcp_congestion_control")
    if missing_cc is not None and missing_cc not in _available_congestion_controls():
        # The kernel lacks the module (this CI kernel ships no tcp_dctcp): sysctl must say so
        # loudly, and every other key must still be applied.
        assert "net.ipv4.tcp_congestion_control" in run.stderr and "rc=0" not in lines
        wanted.pop("net.ipv4.tcp_congestion_control")
        read_back.pop("net.ipv4.tcp_congestion_control", None)
    else:
        assert "rc=0" in lines, run.stderr
    for key, value in wanted.items():
        assert read_back[key] == value, f"{key}: applied {value}, read back {read_back.get(key)}"
    # The namespace kept them: the test machine's own value is untouched.
    assert Path("/proc/sys/net/ipv4/tcp_ecn").read_text() == outside


#: Two TCP classes: bulk on the intent's 4 ms, legacy on its own 7 ms and IW16.
ROUTES_INTENT = ROOT / "tests" / "validation" / "fabrics" / "tcp-hosts.yaml"


def test_tcp_routes_script_sets_what_the_kernel_reads_back(tmp_path: Path) -> None:
    """tcp-routes.sh applied for real in a new network namespace: ``ip route show`` reads back
    the class's minimum RTO (locked, as Linux needs to apply it: include/net/tcp.h tcp_rto_min)
    and initial window; a class that is not listed is refused (exit 2)."""
    reason = _can_unshare()
    if reason is not None:
        pytest.skip(reason)
    intent, source_map = load_intent(ROUTES_INTENT)
    fabric = compile_intent(intent, source_map, targets=("host",))
    items = get_target("host").render(fabric.for_target("host"))
    rendered = {item.file_name: item.text for item in items}
    script = tmp_path / "tcp-routes.sh"
    script.write_text(rendered["tcp-routes.sh"])
    # Two classes, two minimum RTOs: no single sysctl.
    assert "tcp_rto_min_us" not in rendered["99-qosforge.conf"]
    steps = (f'ip link set lo up; sh "{script}" legacy 10.1.0.0/16 dev lo; echo "legacy=$?"; '
             f'ip route show 10.1.0.0/16; sh "{script}" bulk 10.2.0.0/16 dev lo; echo "bulk=$?"; '
             f'ip route show 10.2.0.0/16; sh "{script}" storage 10.3.0.0/16 dev lo; '
             'echo "other=$?"')
    run = subprocess.run(["unshare", "-n", "sh", "-c", steps], capture_output=True, text=True,
                         check=False, timeout=30)
    lines = run.stdout.splitlines()
    assert "legacy=0" in lines, run.stderr
    legacy = next(line for line in lines if line.startswith("10.1.0.0/16"))
    # legacy is plain TCP on hosts whose default is dctcp (bulk's): its routes keep it on Linux's
    # own default, cubic, which every kernel has built in.
    assert "rto_min lock 7ms" in legacy and "initcwnd 16" in legacy and "congctl cubic" in legacy
    if "dctcp" in _available_congestion_controls():
        bulk = next(line for line in lines if line.startswith("10.2.0.0/16"))
        assert "bulk=0" in lines and "rto_min lock 4ms" in bulk and "congctl dctcp" in bulk
    else:
        # This kernel has no tcp_dctcp: the kernel refuses the route rather than ignore congctl.
        assert "bulk=2" in lines and "Unknown tcp congestion algorithm" in run.stderr
    assert "other=2" in lines and "no route attributes for class storage" in run.stderr
