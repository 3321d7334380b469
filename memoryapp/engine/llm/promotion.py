"""Task: which of the memories that keep mattering become core (the nightly forgetting pass).

With a model: one `complete_json` call for the whole batch, answered as `{"promote": [ids]}`; ids
outside the batch are ignored, and a model that fails falls back to the default. Without a model:
the rule in defaults.py (importance at least PROMOTE_MIN_IMPORTANCE).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from memoryapp.providers.llm.errors import ProviderError

from . import defaults
from .delimiters import block, quoted

if TYPE_CHECKING:
    from memoryapp.models import Memory
    from memoryapp.providers.llm.base import LLMProvider

log = logging.getLogger(__name__)

PROMOTE_MARKER = "[memoryapp:promote]"
PROMOTE_SYSTEM = f"""{PROMOTE_MARKER}
You review memories an assistant keeps about its user. Core memories are durable and always worth knowing
(identity, lasting preferences, long-term goals, hard-won lessons); passing details are not.
{quoted("memories")} Reply with only a JSON object:
{{"promote": [ids of the memories that should become core]}}"""


class PromotionAnswer(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, title="promotion")

    promote: list[int] = Field(default_factory=list)


def build_promotion_messages(memories: Sequence[Memory]) -> list[dict]:
    listing = "\n".join(f"{m.pk}: [{m.kind}] {json.dumps(m.content, ensure_ascii=False)}" for m in memories)
    return [{"role": "system", "content": PROMOTE_SYSTEM}, {"role": "user", "content": block("memories", listing)}]


def review(memories: Sequence[Memory], llm: LLMProvider | None) -> list[Memory]:
    """The memories among `memories` that should become core, in their order."""
    if not memories:
        return []
    if llm is None:
        return defaults.promote(memories)
    try:
        chosen = set(llm.complete_json(build_promotion_messages(memories), PromotionAnswer).promote)
    except ProviderError as exc:
        log.warning("promotion review failed, using the rule instead: %s", exc)
        return defaults.promote(memories)
    return [m for m in memories if m.pk in chosen]
