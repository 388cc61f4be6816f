"""The host options on the command line: explain --host, lint --hosts and simulate --hosts refuse
bad input with one line naming the flag (exit 2), never a traceback."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ROCE = str(ROOT / "examples" / "roce-pod.yaml")
Run = Callable[..., tuple[int, str, str]]


def test_explain_takes_a_switch_or_a_host(run_cli: Run) -> None:
    code, _, err = run_cli("explain", ROCE, "--path", "net.ipv4.tcp_ecn")
    assert code == 2 and "give --switch NAME (a config_db value) or --host KIND" in err
    code, out, err = run_cli("explain", ROCE, "--switch", "leaf1", "--host", "nvidia-connectx-6dx-100G", "--path", "ecn.roce_np.cnp_dscp")
    assert code == 2 and "--switch and --host explain different things" in err and "not both" in err and out == ""
    code, out, err = run_cli("explain", ROCE, "--host", "nvidia-connectx-6dx-100G", "--path", "ecn.roce_np.cnp_dscp")
    assert code == 0 and "ecn.roce_np.cnp_dscp on nvidia-connectx-6dx-100G = 48 DSCP" in out
    code, _, err = run_cli("explain", ROCE, "--host", "linux-kernel-100G", "--path", "net.ipv4.tcp_ecn")
    assert code == 2 and err.startswith("error: --host: no host kind 'linux-kernel-100G'") and "Traceback" not in err


def test_lint_and_simulate_refuse_a_bad_host_document(run_cli: Run, tmp_path: Path) -> None:
    garbage = tmp_path / "hosts.json"
    garbage.write_text("{not json")
    code, _, err = run_cli("lint", str(ROOT / "tests" / "lint" / "configs" / "mellanox_whole.json"), "--hosts", str(garbage))
    assert code == 2 and "--hosts" in err and "is not JSON" in err and "Traceback" not in err
    code, _, err = run_cli("simulate", "--scenario", "dumbbell", "--transport", "dctcp", "--ecn-threshold", "65pkt", "--hosts", str(garbage))
    assert code == 2 and "--hosts: applies to incast, not dumbbell" in err


def test_a_hosts_file_nested_too_deeply_is_one_line(run_cli: Run, tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000)
    code, out, err = run_cli(
        "lint",
        str(ROOT / "tests" / "lint" / "configs" / "mellanox_whole.json"),
        "--hosts",
        str(deep),
    )
    assert (code, out) == (2, "")
    assert (
        err == f"error: --hosts: {deep} is nested too deeply to be a host settings document "
        "(hint: give a host_settings.json that compile --target host wrote (it is 4 levels deep))\n"
    )
