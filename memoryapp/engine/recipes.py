"""Named recall presets. Entry points default to one; derive variants with `model_copy(update=...)`."""
from __future__ import annotations

from .config import GraphConfig, RecallConfig

# The chat prompt: top 3 above the calibrated threshold (see docs/recall.md for how it was chosen).
RECALL_CHAT = RecallConfig(limit=3, threshold=0.45)

# The memories page search box: more results, no threshold, typo-tolerant.
RECALL_MEMORIES_PAGE = RecallConfig(limit=50, threshold=0.0)

# Postgres alone: what recall falls back to when the graph is down, and the benchmark's baseline.
RECALL_POSTGRES_ONLY = RecallConfig(limit=10, threshold=0.0, graph=GraphConfig(enabled=False))
