"""Named recall presets. Entry points default to one; derive variants with `model_copy(update=...)`."""
from __future__ import annotations

from .config import FusionConfig, GraphConfig, RecallConfig

# The chat prompt: the top 3 that have evidence (cosine >= 0.3, or shared words, or a graph fact) and
# score above the threshold. Both calibrated on LoCoMo dev: see docs/recall.md.
RECALL_CHAT = RecallConfig(limit=3, threshold=0.45, min_cosine=0.3)

# The memories page search box: more results, no threshold, typo-tolerant. Searches are short and
# sets can be small, where rank alone barely separates first from third: meaning counts for half.
RECALL_MEMORIES_PAGE = RecallConfig(limit=50, threshold=0.0, fusion=FusionConfig(rank_share=0.5))

# Postgres alone: what recall falls back to when the graph is down, and the benchmark's baseline.
RECALL_POSTGRES_ONLY = RecallConfig(limit=10, threshold=0.0, graph=GraphConfig(enabled=False))
