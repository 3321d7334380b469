"""The scripted model for graphiti's prompts answers each schema with valid JSON (checked by graphiti's own models)."""

from __future__ import annotations

import json

from graphiti_core.prompts.dedupe_edges import EdgeDuplicate
from graphiti_core.prompts.dedupe_nodes import NodeResolutions
from graphiti_core.prompts.extract_edges import ExtractedEdges
from graphiti_core.prompts.extract_nodes import ExtractedEntities

from tests.integration.graph.graphiti_script import GraphitiScript, object_of, third_person


def body(schema: str, user: str) -> dict:
    return {
        "messages": [{"role": "system", "content": "x"}, {"role": "user", "content": user}],
        "response_format": {"type": "json_schema", "json_schema": {"name": schema, "schema": {}}},
    }


def test_it_names_what_a_memory_is_about():
    assert object_of("I live in Berlin") == "Berlin"
    assert object_of("I prefer tabs over spaces") == "over spaces"
    assert third_person("I live in Berlin.") == "User live in Berlin"


def test_it_answers_each_prompt_with_its_models_shape():
    script = GraphitiScript()
    nodes = json.loads(
        script(body("ExtractedEntities", "<CURRENT MESSAGE>\nUser: I live in Berlin\n</CURRENT MESSAGE>"))
    )
    assert [e.name for e in ExtractedEntities(**nodes).extracted_entities] == ["User", "Berlin"]

    prompt = (
        '<ENTITIES>\n[{"id": 0, "name": "User"}, {"id": 1, "name": "Berlin"}]\n</ENTITIES>\n'
        '<EXISTING ENTITIES>\n[{"candidate_id": 0, "name": "user"}]\n</EXISTING ENTITIES>'
    )
    resolutions = NodeResolutions(**json.loads(script(body("NodeResolutions", prompt)))).entity_resolutions
    assert [r.duplicate_candidate_id for r in resolutions] == [0, -1]

    prompt = (
        "<CURRENT_MESSAGE>\nUser: I live in Berlin\n</CURRENT_MESSAGE>\n<ENTITIES>\n"
        '[{"name": "User"}, {"name": "Berlin"}]\n</ENTITIES>\n<REFERENCE_TIME>\n'
        "2026-01-01 00:00:00+00:00  # ISO 8601\n</REFERENCE_TIME>"
    )
    edges = ExtractedEdges(**json.loads(script(body("ExtractedEdges", prompt)))).edges
    assert [(e.source_entity_name, e.target_entity_name, e.fact) for e in edges] == [
        ("User", "Berlin", "User live in Berlin")
    ]

    prompt = (
        "<EXISTING FACTS>\n[{'idx': 0, 'fact': 'User live in Berlin'}]\n</EXISTING FACTS>\n"
        "<NEW FACT>\nUser live in Berlin\n</NEW FACT>"
    )
    assert EdgeDuplicate(**json.loads(script(body("EdgeDuplicate", prompt)))).duplicate_facts == [0]
    assert script.calls == {"ExtractedEntities": 1, "NodeResolutions": 1, "ExtractedEdges": 1, "EdgeDuplicate": 1}
