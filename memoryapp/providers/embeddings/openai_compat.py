"""Any OpenAI-compatible `/embeddings` endpoint (OpenAI, Ollama, vLLM, bge-m3 servers...)."""

from __future__ import annotations

import math

import openai

from memoryapp.providers.llm.errors import ProviderError


class OpenAIEmbedder:
    def __init__(self, base_url: str, api_key: str | None, model: str, dim: int, timeout: float = 30.0):
        self.name = model
        self.dim = dim
        self._client = openai.OpenAI(base_url=base_url, api_key=api_key or "none", timeout=timeout, max_retries=2)

    def embed(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        try:
            response = self._client.embeddings.create(model=self.name, input=texts)
        except openai.APIError as exc:
            raise ProviderError(f"the embedding endpoint failed: {exc}", retryable=True) from exc
        vectors = [item.embedding for item in sorted(response.data, key=lambda item: item.index)]
        for vector in vectors:
            if len(vector) != self.dim:
                raise ProviderError(
                    f"the embedding endpoint returned {len(vector)}-d vectors; EMBEDDING_DIM is {self.dim}",
                    retryable=False,
                )
        return [_unit(v) for v in vectors]

    def embed_one(self, text: str) -> list[float]:
        return self.embed([text])[0]


def _unit(vector: list[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vector)) or 1.0
    return [x / norm for x in vector]
