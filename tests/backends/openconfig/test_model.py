"""validate_openconfig: a document the decoder accepted is not decoded again in the process; a
rejected one is rejected every time."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from qosforge.backends.openconfig import model
from qosforge.backends.openconfig.model import (
    ROOT_KEY,
    ModelViolation,
    new_root,
    to_rfc7951,
    validate_openconfig,
)


def _document() -> dict[str, Any]:
    root = new_root()
    queue = root.qos.queues.queue.add("tcp")
    queue.config.name = "tcp"
    queue.config.queue_id = 3
    return to_rfc7951(root)


def test_accepted_document_is_decoded_once_and_rejected_ones_always(monkeypatch: pytest.MonkeyPatch) -> None:
    decoded: list[dict[str, Any]] = []
    load = model.load_openconfig
    monkeypatch.setattr(model, "load_openconfig", lambda document: (decoded.append(document), load(document))[1])
    document = _document()
    document[ROOT_KEY]["queues"]["queue"][0]["config"]["queue-id"] = 7  # a document no other test validates
    validate_openconfig(document)
    validate_openconfig(copy.deepcopy(document))
    assert len(decoded) == 1
    broken = copy.deepcopy(document)
    broken[ROOT_KEY]["queues"]["queue"][0]["config"]["queue-id"] = 300  # uint8
    for _attempt in range(2):
        with pytest.raises(ModelViolation, match="uint8"):
            validate_openconfig(broken)
    assert len(decoded) == 3
