"""``qosforge.api.init``: a starter intent that compiles as written, without click or prompts."""

from __future__ import annotations

from pathlib import Path

import pytest
from ruamel.yaml import YAML

from qosforge.api.compile import compile_fabric
from qosforge.api.init import InitRequest, starter_intent_text, write_starter_intent
from qosforge.errors import QosforgeError


def test_the_starter_is_written_and_compiles_to_its_request(tmp_path: Path) -> None:
    request = InitRequest(
        output=tmp_path / "pod.yaml",
        profile="mellanox-spectrum-2",
        leaves=3,
        spines=2,
        hosts_per_leaf=4,
        classes=("rdma:dcqcn:26:lossless", "web:dctcp:0,10"),
    )
    result = write_starter_intent(request)
    assert result.output.read_text() == result.text
    document = YAML(typ="safe").load(result.text)
    assert document["metadata"]["name"] == "pod"
    # No speed asked: the profile's port speed (SN3700, Spectrum-2: 32 x 200GbE).
    assert document["topology"]["leaf_spine"]["host_link"]["speed"] == "200G"
    fabric = compile_fabric(str(result.output)).fabric
    assert len(fabric.switches) == 3 + 2
    assert sorted((c.name, c.lossless) for c in fabric.switches[0].classes) == [
        ("rdma", True),
        ("web", False),
    ]


def test_an_existing_file_is_kept_unless_forced(tmp_path: Path) -> None:
    output = tmp_path / "fabric.yaml"
    output.write_text("mine")
    with pytest.raises(QosforgeError, match="the file exists and is kept"):
        write_starter_intent(InitRequest(output=output))
    assert output.read_text() == "mine"
    assert write_starter_intent(InitRequest(output=output, force=True)).output.read_text() != "mine"


@pytest.mark.parametrize(
    ("request_fields", "place"),
    [
        ({"classes": ("rdma:nope:26",)}, "--class rdma:nope:26"),
        ({"speed": "fast"}, "--speed"),
        ({"profile": "broadcom-trident9"}, None),
    ],
)
def test_bad_answers_are_refused_naming_the_flag(
    tmp_path: Path, request_fields: dict[str, object], place: str | None
) -> None:
    with pytest.raises(QosforgeError) as raised:
        starter_intent_text(InitRequest(output=tmp_path / "f.yaml", **request_fields))  # type: ignore[arg-type]
    if place is not None:
        assert raised.value.place == place
    assert not (tmp_path / "f.yaml").exists()
