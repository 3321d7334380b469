"""Task: the cues of memories written without them (the page, the API, an import, offline extraction).

One `complete_json` call per batch of up to CUE_BATCH memories, answered as `{"memories": [{"id": 7,
"cues": [...]}]}` and validated like extraction's answer (the same `Cues` rule); ids outside the batch
are ignored. Extraction with a model asks for cues in its own call (candidates.py): this task is only for
what was written without. No model: no cues, and recall works on the memories' own words.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated

from pydantic import BaseModel, ConfigDict, Field

from .delimiters import block, quoted
from .schemas import Cues

if TYPE_CHECKING:
    from memoryapp.models import Memory
    from memoryapp.providers.llm.base import LLMProvider

CUE_BATCH = 25  # memories per call: one call's answer stays short, a thousand memories take 40 calls
CUE_MARKER = "[memoryapp:cues]"
CUE_SYSTEM = f"""{CUE_MARKER}
An assistant keeps memories about its user. For each memory, write 3 to 6 short situations or questions
in which it would help the assistant, including ones that only imply it (for "Docker builds on the office
network need HTTPS_PROXY": "building or pulling Docker images", "docker compose up", "构建镜像").
Write them in the memory's language and in English, each under 80 characters, with no secrets.
{quoted("memories")} Reply with only a JSON object:
{{"memories": [{{"id": 7, "cues": ["...", "..."]}}]}}"""


class MemoryCues(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    id: Annotated[int, Field(strict=True)]
    cues: Cues = ()


class CueAnswer(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, title="cues")

    memories: list[MemoryCues] = Field(default_factory=list)


def build_cue_messages(memories: Sequence[Memory]) -> list[dict]:
    listing = "\n".join(f"{m.pk}: [{m.kind}] {json.dumps(m.content, ensure_ascii=False)}" for m in memories)
    return [{"role": "system", "content": CUE_SYSTEM}, {"role": "user", "content": block("memories", listing)}]


def write_cues(memories: Sequence[Memory], llm: LLMProvider) -> dict[int, tuple[str, ...]]:
    """Memory id -> the cues the model wrote for it (only ids of `memories`); raises ProviderError."""
    if not memories:
        return {}
    answer = llm.complete_json(build_cue_messages(memories), CueAnswer)
    wanted = {m.pk for m in memories}
    return {item.id: item.cues for item in answer.memories if item.id in wanted}
