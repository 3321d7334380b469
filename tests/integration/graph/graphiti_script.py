"""A deterministic stand-in for the model behind graphiti 0.31.1's prompts.

graphiti's OpenAI-generic client asks for `response_format={"type": "json_schema", "json_schema":
{"name": <pydantic model>, ...}}`, so the schema name says which prompt this is. Each answer is
valid JSON for that model, built from the prompt's own blocks:

- ExtractedEntities  (extract_nodes.extract_message): the speaker "User" and the memory's object
- NodeResolutions    (dedupe_nodes.nodes): duplicates by exact (case-folded) name
- ExtractedEdges     (extract_edges.edge): one fact User -> object, the memory sentence in 3rd person,
                     valid_at = REFERENCE_TIME (the memory's valid_from)
- EdgeDuplicate      (dedupe_edges.resolve_edge): duplicates by identical fact text, no contradictions
- EdgeTimestamps, BatchEdgeTimestamps, SummarizedEntities, EntitySummary: minimal valid answers

    server.default = GraphitiScript()

With GRAPH_LLM_STRUCTURED_OUTPUT=json_object the schema arrives at the end of the prompt instead,
and its "title" names the model.
"""

from __future__ import annotations

import ast
import json
import re
from collections import Counter
from typing import Any

SCHEMA_IN_PROMPT = "Respond with a JSON object in the following format:"
STOP = {
    "i",
    "my",
    "me",
    "the",
    "a",
    "an",
    "to",
    "in",
    "at",
    "of",
    "and",
    "is",
    "am",
    "are",
    "for",
    "with",
    "now",
    "really",
    "like",
    "love",
    "prefer",
    "use",
    "live",
    "work",
    "on",
    "from",
}


def _block(text: str, tag: str) -> str:
    match = re.search(rf"<{tag}>\s*(.*?)\s*</{tag}>", text, re.DOTALL)
    return match.group(1) if match else ""


def _user_text(body: dict) -> str:
    return "\n".join(str(m.get("content") or "") for m in body.get("messages", []) if m.get("role") == "user")


def memory_sentence(episode_content: str) -> str:
    """The memory's text from the episode body ("User: I live in Berlin")."""
    text = episode_content.strip()
    return text.split(":", 1)[1].strip() if text.lower().startswith("user:") else text


def object_of(sentence: str) -> str:
    """The thing a memory is about: its capitalised words, else its last content words."""
    words = re.findall(r"[\w+#.-]+", sentence)
    caps = [w for w in words[1:] if w[:1].isupper() and w.lower() not in STOP]
    if caps:
        return " ".join(caps)
    content = [w for w in words if w.lower() not in STOP]
    return " ".join(content[-2:]) or sentence[:40]


def third_person(sentence: str) -> str:
    fact = re.sub(r"^I\b", "User", sentence.strip().rstrip("."))
    fact = re.sub(r"\bmy\b", "User's", fact)
    return re.sub(r"\bam\b", "is", fact)


class GraphitiScript:
    """Callable responder for ScriptedLLMServer.default; counts calls per schema name."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()

    def __call__(self, body: dict) -> str:
        fmt = body.get("response_format") or {}
        prompt = _user_text(body)
        name = (fmt.get("json_schema") or {}).get("name", "") if fmt.get("type") == "json_schema" else ""
        if not name and SCHEMA_IN_PROMPT in prompt:  # json_object mode: graphiti appends the schema
            prompt, schema = prompt.rsplit(SCHEMA_IN_PROMPT, 1)
            name = json.loads(schema).get("title", "")
        self.calls[name or "unstructured"] += 1
        handler = getattr(self, f"_{name}", None)
        return json.dumps(handler(prompt) if handler else {})

    def _ExtractedEntities(self, prompt: str) -> dict[str, Any]:
        sentence = memory_sentence(_block(prompt, "CURRENT MESSAGE") or _block(prompt, "TEXT"))
        names = ["User", object_of(sentence)]
        return {"extracted_entities": [{"name": n, "entity_type_id": 0, "episode_indices": [0]} for n in names]}

    def _NodeResolutions(self, prompt: str) -> dict[str, Any]:
        extracted = json.loads(_block(prompt, "ENTITIES") or "[]")
        existing = json.loads(_block(prompt, "EXISTING ENTITIES") or "[]")
        by_name = {str(e.get("name", "")).casefold(): e.get("candidate_id", -1) for e in existing}
        return {
            "entity_resolutions": [
                {"id": e["id"], "name": e["name"], "duplicate_candidate_id": by_name.get(str(e["name"]).casefold(), -1)}
                for e in extracted
            ]
        }

    def _ExtractedEdges(self, prompt: str) -> dict[str, Any]:
        sentence = memory_sentence(_block(prompt, "CURRENT_MESSAGE"))
        names = [n["name"] for n in json.loads(_block(prompt, "ENTITIES") or "[]")]
        when = _block(prompt, "REFERENCE_TIME").split("#")[0].strip()
        source = next((n for n in names if n.casefold() == "user"), None)
        targets = [n for n in names if n != source]
        if source is None or not targets:
            return {"edges": []}
        relation = "_".join(w.upper() for w in re.findall(r"[A-Za-z]+", sentence)[1:3]) or "RELATES_TO"
        return {
            "edges": [
                {
                    "source_entity_name": source,
                    "target_entity_name": targets[0],
                    "relation_type": relation,
                    "fact": third_person(sentence),
                    "valid_at": _iso_z(when),
                    "invalid_at": None,
                }
            ]
        }

    def _EdgeDuplicate(self, prompt: str) -> dict[str, Any]:
        new = _block(prompt, "NEW FACT").strip().casefold()
        existing = ast.literal_eval(_block(prompt, "EXISTING FACTS") or "[]")
        return {
            "duplicate_facts": [e["idx"] for e in existing if str(e["fact"]).strip().casefold() == new],
            "contradicted_facts": [],
        }

    def _EdgeTimestamps(self, prompt: str) -> dict[str, Any]:
        return {"valid_at": None, "invalid_at": None}

    def _BatchEdgeTimestamps(self, prompt: str) -> dict[str, Any]:
        return {"timestamps": []}

    def _SummarizedEntities(self, prompt: str) -> dict[str, Any]:
        return {"summaries": []}

    def _EntitySummary(self, prompt: str) -> dict[str, Any]:
        return {"summary": ""}


def _iso_z(value: str) -> str | None:
    value = value.strip()
    if not value:
        return None
    return value.replace("+00:00", "Z") if value.endswith("+00:00") else value
