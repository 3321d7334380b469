"""Final-score distributions of relevant vs irrelevant hits, to calibrate a recall threshold. Pure."""

from __future__ import annotations

from collections.abc import Sequence

from .metrics import percentile

THRESHOLDS = (0.30, 0.35, 0.40, 0.45, 0.50, 0.55, 0.60, 0.65, 0.70, 0.75)


def _describe(scores: Sequence[float]) -> dict[str, float]:
    return {"n": len(scores), **{f"p{q}": round(percentile(scores, q), 4) for q in (5, 25, 50, 75, 95)}}


def score_distribution(hits: Sequence[tuple[float, bool]], thresholds: Sequence[float] = THRESHOLDS) -> dict:
    """hits: (final score, relevant?) pairs. For each threshold: the share of relevant hits kept and of
    irrelevant hits dropped, and the precision of what is kept."""
    relevant = [s for s, ok in hits if ok]
    irrelevant = [s for s, ok in hits if not ok]
    sweep = {}
    for t in thresholds:
        kept_rel = sum(s >= t for s in relevant)
        kept_irr = sum(s >= t for s in irrelevant)
        sweep[f"{t:.2f}"] = {
            "relevant_kept": round(kept_rel / len(relevant), 4) if relevant else None,
            "irrelevant_dropped": round(1 - kept_irr / len(irrelevant), 4) if irrelevant else None,
            "precision_kept": round(kept_rel / (kept_rel + kept_irr), 4) if kept_rel + kept_irr else None,
        }
    return {"relevant": _describe(relevant), "irrelevant": _describe(irrelevant), "threshold_sweep": sweep}
