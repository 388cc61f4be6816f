"""``qosforge.api.delivery``: push and diff as a typed request, without click, against the test
gNMI target (tests/deliver/gnmi_target.py) over TLS on 127.0.0.1."""

# ruff: noqa: F811  (pytest fixtures imported from gnmi_fixtures are parameters by name)
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "deliver"))
from gnmi_fixtures import Pki, StartTarget, model_checked_once, pki, small_intent, start_target  # noqa: F401

from qosforge.api.delivery import (
    DIFFERENT,
    IN_SYNC,
    UNUSABLE,
    ConnectionRequest,
    DeliveryRequest,
    deliver,
    gnmi_connection,
    plan_delivery,
    set_request_texts,
)
from qosforge.deliver.compare import compare
from qosforge.errors import QosforgeError


def test_a_dry_run_compiles_the_intent_and_opens_no_connection(small_intent: str) -> None:
    plan = plan_delivery(
        DeliveryRequest(
            "push",
            ConnectionRequest(),
            intent=Path(small_intent),
            switches=("leaf1",),
            dry_run=True,
        )
    )
    [(device, intended)] = plan.pairs
    assert (plan.target, device.name, device.port, intended.source) == (
        "openconfig",
        "leaf1",
        0,
        f"{small_intent} (switch leaf1)",
    )
    assert not plan.needs_password
    [text] = set_request_texts(plan)
    assert "replace" in text and "openconfig-qos" in text


def test_push_then_diff_against_a_device(
    small_intent: str,
    start_target: StartTarget,
    pki: Pki,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(
        tmp_path
    )  # the backup of an intent's push goes to ./<switch>.openconfig.backup.json
    target = start_target()
    # A generous deadline: the target checks each Set against the model (seconds on a busy machine).
    connection = ConnectionRequest(address=target.address, tls_ca=pki.ca, timeout="60s")
    diff = plan_delivery(
        DeliveryRequest("diff", connection, intent=Path(small_intent), switches=("leaf1",))
    )
    before = deliver(diff, "diff", None)
    assert (
        before.exit_code == DIFFERENT and before.outcomes[0].differences
    )  # an empty device differs
    pushed = deliver(
        plan_delivery(
            DeliveryRequest("push", connection, intent=Path(small_intent), switches=("leaf1",))
        ),
        "push",
        None,
    )
    assert pushed.exit_code == IN_SYNC, pushed.outcomes
    assert target.state.calls[-4:] == ["Capabilities", "Get", "Set", "Get"]
    [(_, intended)] = diff.pairs
    assert compare(intended.document, {"openconfig-qos:qos": target.state.config}) == ()
    assert json.loads((tmp_path / "leaf1.openconfig.backup.json").read_text()) == {
        "openconfig-qos:qos": {}
    }
    assert deliver(diff, "diff", None).exit_code == IN_SYNC


def test_an_unreachable_device_is_an_outcome_not_an_exception(small_intent: str) -> None:
    plan = plan_delivery(
        DeliveryRequest(
            "diff",
            ConnectionRequest(address="127.0.0.1:9", insecure=True, timeout="200ms"),
            intent=Path(small_intent),
            switches=("leaf1",),
        )
    )
    result = deliver(plan, "diff", None)
    assert (
        result.exit_code == UNUSABLE
        and result.outcomes[0].error
        and "127.0.0.1:9" in result.outcomes[0].error
    )


@pytest.mark.parametrize(
    ("request_", "place"),
    [
        (
            DeliveryRequest("diff", ConnectionRequest(address="h:1", inventory=Path("i.yaml"))),
            "--address",
        ),
        (
            DeliveryRequest(
                "diff",
                ConnectionRequest(address="h:1", insecure=True, skip_verify=True),
                config=Path("x"),
            ),
            "--insecure",
        ),
        (DeliveryRequest("diff", ConnectionRequest(address="h:1")), "arguments"),
        (
            DeliveryRequest(
                "diff", ConnectionRequest(), intent=Path("x.yaml"), switches=("leaf1",)
            ),
            "--address",
        ),
        (
            DeliveryRequest(
                "diff", ConnectionRequest(address="h:1"), intent=Path("x.yaml"), switches=("a", "b")
            ),
            "--switch",
        ),
    ],
)
def test_requests_that_cannot_be_delivered_are_refused_naming_the_flag(
    request_: DeliveryRequest, place: str
) -> None:
    with pytest.raises(QosforgeError) as raised:
        gnmi_connection(request_.connection)
        plan_delivery(request_)
    assert raised.value.place == place
