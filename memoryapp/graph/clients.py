"""Our providers, seen through graphiti's client interfaces.

- `ProviderEmbedder` wraps `get_embedder()` (sync, maybe CPU-bound) as graphiti's `EmbedderClient`.
- `build_llm_client()` points graphiti's OpenAI-generic client at the same endpoint, key, model and
  timeout as our `OpenAICompatibleLLM`; it asks for `json_schema` structured output, so every
  graphiti prompt names its pydantic response model (what tests/integration/graph script on).
- `RankOrderCrossEncoder` keeps graphiti from building its OpenAI reranker: our recipes rerank by
  RRF, so it is only a fallback that keeps the given order.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable
from typing import TYPE_CHECKING

# Before graphiti is imported anywhere: no anonymous usage events leave this machine.
os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")

from graphiti_core.cross_encoder.client import CrossEncoderClient  # noqa: E402
from graphiti_core.embedder.client import EmbedderClient  # noqa: E402
from graphiti_core.llm_client import LLMClient  # noqa: E402

from .errors import GraphOffline  # noqa: E402

if TYPE_CHECKING:
    from memoryapp.providers.embeddings import Embedder


class ProviderEmbedder(EmbedderClient):
    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder

    async def create(self, input_data: str | list[str] | Iterable[int] | Iterable[Iterable[int]]) -> list[float]:
        text = input_data if isinstance(input_data, str) else " ".join(str(x) for x in input_data)
        # The local model is CPU-bound: keep it off the event loop.
        return await asyncio.to_thread(self.embedder.embed_one, text)

    async def create_batch(self, input_data_list: list[str]) -> list[list[float]]:
        if not input_data_list:
            return []
        return await asyncio.to_thread(self.embedder.embed, list(input_data_list))


class RankOrderCrossEncoder(CrossEncoderClient):
    async def rank(self, query: str, passages: list[str]) -> list[tuple[str, float]]:
        return [(p, 1.0 / (i + 1)) for i, p in enumerate(passages)]


class NoModelClient(LLMClient):
    """GRAPH_EXTRACTION=rules: graphiti is handed no model, and any prompt it tries fails as offline."""

    def __init__(self) -> None:
        super().__init__(None)

    async def _generate_response(self, *args: object, **kwargs: object) -> dict:
        raise GraphOffline()


def build_llm_client() -> LLMClient:
    """graphiti's LLM client for the configured model; raises GraphOffline when there is none."""
    from graphiti_core.llm_client.config import LLMConfig
    from graphiti_core.llm_client.openai_generic_client import OpenAIGenericClient
    from openai import AsyncOpenAI

    from memoryapp.providers.llm import get_llm

    from .conf import graph_config

    llm = get_llm()
    if llm is None or not hasattr(llm, "client"):
        raise GraphOffline()
    mode = graph_config().llm_structured_output
    api_key = llm.client.api_key or "none"
    base_url = str(llm.client.base_url)
    # One SDK retry like our own client; graphiti adds its own backoff for bad JSON and 429s.
    client = AsyncOpenAI(base_url=base_url, api_key=api_key, timeout=llm.timeout, max_retries=1)
    config = LLMConfig(api_key=api_key, model=llm.model, small_model=llm.model, base_url=base_url, temperature=0)
    return OpenAIGenericClient(config=config, client=client, structured_output_mode=mode)
