"""The stored form of a memory's cues (Memory.cues): the list itself, one vector for all of them and
their search words, computed in one place for every write path (add, supersede, edit, bulk, the cue job)."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils import timezone

from ..learned.situations import Inferred, infer
from ..text import search_tokens


def cue_text(cues: Sequence[str]) -> str:
    """What is embedded and searched: the cues as one text ("building Docker images; 构建镜像")."""
    return "; ".join(cues)


def embed_cues(cue_lists: Sequence[Sequence[str]]) -> list[list[float] | None]:
    """One vector per memory's cues (None where it has none), in one embedder call."""
    from memoryapp.providers.embeddings import get_embedder

    texts = [cue_text(cues) for cues in cue_lists if cues]
    vectors = iter(get_embedder().embed(texts) if texts else [])
    return [next(vectors) if cues else None for cues in cue_lists]


def cue_fields(
    cues: Sequence[str], vector: list[float] | None = None, *, written=None, memory: tuple[str, list] | None = None
) -> dict:
    """Memory fields for these cues. `vector`: their embedding when already computed. No cues and nobody
    chose none (`written` None): the cues the situation bank infers from `memory` (its text and vector)
    when given (engine/learned/situations.py), else none; either way no date, so the cue job still writes
    a model's when one is available."""
    cues = list(cues)
    if not cues:
        inferred = infer([memory[1]], [memory[0]])[0] if written is None and memory is not None else None
        if inferred is None:
            return {
                "cues": [],
                "cue_embedding": None,
                "search_cues": "",
                "cues_written_at": written,
                "cues_inferred": False,
            }
        return inferred_fields(inferred)
    if vector is None:
        vector = embed_cues([cues])[0]
    return {
        "cues": cues,
        "cue_embedding": vector,
        "search_cues": search_tokens(cue_text(cues)),
        "cues_written_at": written or timezone.now(),
        "cues_inferred": False,
    }


def inferred_fields(inferred: Inferred) -> dict:
    """Memory fields for cues the bank inferred: undated, so a model's replace them. Their words are not
    searched: another memory's situations ("weekend plans") would match by a word the user never tied to
    this one; their vector finds the memory by meaning."""
    return {
        "cues": list(inferred.cues),
        "cue_embedding": inferred.vector,
        "search_cues": "",
        "cues_written_at": None,
        "cues_inferred": True,
    }
