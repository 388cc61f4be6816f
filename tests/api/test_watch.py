"""``qosforge.api.watch``: counters held against the compiled predictions, without click, against
a gNMI target publishing counters (tests/deliver/counters_target.py)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "deliver"))
from counters_target import CounterState, serve_counters

from qosforge.api.compile import CompileRequest, compile_to_folder
from qosforge.api.delivery import ConnectionRequest
from qosforge.api.reporting import StderrReporter
from qosforge.api.watch import WatchRequest, prepare_watch, render_watch, run_watch
from qosforge.errors import QosforgeError

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def roce_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("roce") / "out"
    compile_to_folder(
        CompileRequest(str(ROOT / "examples/roce-pod.yaml"), str(out), targets=("sonic",)),
        StderrReporter(),
    )
    return out


@pytest.fixture
def address() -> Iterator[str]:
    # The DCTCP queue of leaf1's Ethernet0 at 150 kB, above its K, with no ECN mark (ECN off).
    state = CounterState(
        sonic={
            ("COUNTERS", "Ethernet*", "Queues"): {
                "Ethernet0:1": {
                    "SAI_QUEUE_STAT_PACKETS": "5000",
                    "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES": "150000",
                    "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS": "0",
                }
            }
        },
        openconfig=[],
        queue_ids={"tcp": 1, "rdma": 3, "cnp": 6},
        pg_name_map={},
    )
    server, port = serve_counters(state)
    yield f"127.0.0.1:{port}"
    server.stop(None)


def _request(roce_out: Path, address: str, **fields: object) -> WatchRequest:
    request = WatchRequest(
        output_dir=roce_out,
        connection=ConnectionRequest(address=address, insecure=True, timeout="200ms"),
        switches=("leaf1",),
        once=True,
    )
    return replace(request, **fields)


def test_a_queue_above_k_without_marks_is_found(roce_out: Path, address: str) -> None:
    result = run_watch(prepare_watch(_request(roce_out, address)), None)
    assert result.exit_code == 1 and result.unusable == 0 and result.how == "once"
    assert [(f.rule, f.key) for f in result.findings if f.severity.value == "error"] == [
        ("watch-ecn-off", "Ethernet0")
    ]
    document = json.loads(render_watch(result, "json", str(roce_out)))
    assert document["summary"]["exit_code"] == 1 and document["switches"][0]["name"] == "leaf1"
    disabled = run_watch(
        prepare_watch(_request(roce_out, address, disable=("watch-ecn-off",))), None
    )
    assert "watch-ecn-off" not in {f.rule for f in disabled.findings}


def test_a_switch_that_cannot_be_read_is_no_pass(roce_out: Path) -> None:
    result = run_watch(prepare_watch(_request(roce_out, "127.0.0.1:9")), None)
    assert result.exit_code == 2 and result.unusable == 1 and result.switches[0]["error"]
    assert "nothing checked" in render_watch(result, "text", str(roce_out))


@pytest.mark.parametrize(
    ("fields", "place"),
    [
        ({"disable": ("watch-nope",)}, "--disable"),
        ({"max_pause": "0%"}, "--max-pause"),
        ({"duration": "5s"}, "--duration"),
        ({"switches": ("leaf99",)}, None),
    ],
)
def test_bad_requests_are_refused_before_any_connection(
    roce_out: Path, fields: dict[str, object], place: str | None
) -> None:
    with pytest.raises(QosforgeError) as raised:
        prepare_watch(_request(roce_out, "127.0.0.1:9", **fields))
    assert raised.value.place == (place or str(roce_out))
