"""``qosforge.api.schema``: the intent's JSON Schema, as the compiler validates it."""

from __future__ import annotations

import json

from qosforge.api.schema import intent_schema, intent_schema_text
from qosforge.transports import transport_names


def test_the_schema_lists_every_registered_transport_and_requires_the_intents_blocks() -> None:
    schema = intent_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert {"apiVersion", "kind", "metadata", "topology", "classes"} <= set(schema["required"])
    assert (
        tuple(schema["$defs"]["ClassSpec"]["properties"]["transport"]["enum"]) == transport_names()
    )
    assert json.loads(intent_schema_text()) == schema and intent_schema_text().endswith("}\n")
