"""``tune --push``'s staged rollout against the software switch served over gNMI: a canary that
regresses (its tuned config turns ECN off on the DCTCP class, which ``watch`` finds against the
prediction) is rolled back to the config it had; a clean one completes; a dry run connects to
nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from served_leaf import INTENT, connection, ecn_off, in_sync, serve_leaf1

from qosforge.api.delivery import ConnectionRequest
from qosforge.api.tuning.rollout import RolloutRequest, rollout

#: Long enough for the restarted simulation to queue the DCTCP incast above K (a few hundred
#: simulated microseconds) on a loaded 2-core machine.
WINDOW = "6s"


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from qosforge.api.compile import CompileRequest, compile_to_folder
    from qosforge.api.reporting import QuietReporter

    out = tmp_path_factory.mktemp("roce") / "out"
    # leaf1 alone: every rollout here pushes and watches leaf1 only.
    request = CompileRequest(intent_path=str(INTENT), output_dir=str(out), switches=("leaf1",))
    compile_to_folder(request, QuietReporter())
    return out


@pytest.fixture
def served() -> Iterator[Any]:
    """roce-pod's leaf1 under a DCTCP incast into Ethernet0, served on a free port."""
    server = serve_leaf1()
    yield server
    server.stop()


def _for_real(configs: Path, connection: ConnectionRequest, backups: Path) -> RolloutRequest:
    return RolloutRequest(
        configs_dir=configs,
        connection=connection,
        switches=("leaf1",),
        window=WINDOW,
        dry_run=False,
        backup_dir=backups,
    )


# A canary pushed, watched for 6 s against a live incast and rolled back (~20 CPU s): the slow
# tier (pyproject.toml), as is the clean canary below; the default tier pushes and diffs against a
# served switch (tests/api/test_delivery.py) and watches one (tests/cli/test_watch_end_to_end.py).
@pytest.mark.slow
def test_a_regressing_canary_is_rolled_back(compiled: Path, served: Any, tmp_path: Path) -> None:
    address = connection(served)
    assert served.live.wait_until(1e-4, timeout_s=600.0)
    assert in_sync(compiled, address)
    notes: list[str] = []
    result = rollout(
        _for_real(ecn_off(compiled, tmp_path / "tuned"), address, tmp_path), None, notes.append
    )
    assert result.status == "rolled-back", (result.log, served.live.progress())
    assert any(finding.startswith("watch-ecn-off ") for finding in result.findings), result.findings
    assert result.log[0].startswith("pushed leaf1 (canary); previous /qos saved to ")
    assert result.log[-1].startswith("rolled leaf1 back to ") and notes == [
        f"rollout: {line}" for line in result.log
    ]
    assert in_sync(compiled, address)  # the switch runs the config it had before the rollout


# The same push, then 6 s of wall time against the live incast (~7-9 CPU s): the slow tier
# (pyproject.toml). The default tier pushes and diffs against a served switch
# (tests/api/test_delivery.py) and watches one (tests/cli/test_watch_end_to_end.py).
@pytest.mark.slow
def test_a_clean_canary_completes(compiled: Path, served: Any, tmp_path: Path) -> None:
    assert served.live.wait_until(1e-4, timeout_s=600.0)
    result = rollout(_for_real(compiled, connection(served), tmp_path), None, lambda text: None)
    assert result.status == "completed", result.log
    assert result.log[-1] == f"watched leaf1 for {WINDOW}: counters agree with the prediction"


def test_a_dry_run_plans_without_connecting(compiled: Path, tmp_path: Path) -> None:
    # Nothing listens on port 9 of 127.0.0.1: a connection attempt would fail the rollout.
    nowhere = ConnectionRequest(address="127.0.0.1:9", insecure=True)
    result = rollout(
        RolloutRequest(configs_dir=compiled, connection=nowhere, switches=("leaf1",)),
        None,
        lambda text: None,
    )
    assert result.status == "dry-run"
    assert result.log[0].startswith(
        "dry run: would push leaf1 (canary), run it for 10s, then watch it against "
    )
    assert list(tmp_path.iterdir()) == []


def test_a_dry_run_checks_the_inventorys_switches_and_tls_files(
    compiled: Path, tmp_path: Path
) -> None:
    from qosforge.errors import QosforgeError

    inventory = tmp_path / "inventory.yaml"
    inventory.write_text(
        "defaults: {tls_ca: ca.pem, timeout: 10s}\n"
        "switches:\n  leaf1: {address: '192.0.2.11:9339'}\n"
    )
    request = RolloutRequest(
        configs_dir=compiled,
        connection=ConnectionRequest(inventory=inventory),
        switches=("leaf1",),
    )
    # The dry run must not say "would push leaf1" over a CA file the push could not read.
    with pytest.raises(QosforgeError) as missing:
        rollout(request, None, lambda text: None)
    assert missing.value.one_line().startswith("leaf1 (192.0.2.11:9339): --tls-ca: cannot read ")
    with pytest.raises(QosforgeError, match="not in the inventory"):
        rollout(
            RolloutRequest(
                configs_dir=compiled,
                connection=ConnectionRequest(inventory=inventory),
                switches=("leaf9",),
            ),
            None,
            lambda text: None,
        )
