"""Learned change detection: what a new statement does to the user's nearest memories, with no model
configured. The shipped model (weights/changes.npz, trained by bench/train/changes.py) reads each
(statement, neighbour) pair and says `replaces` (a new value for the same thing), `restates` (the same
thing again) or `other` (a resemblance, or unrelated).

A replacement must clear a high threshold, chosen on the dev pairs so that wrong replacements stay
under 2 %: superseding a memory the user still holds true is data loss, a missed change only leaves
two versions side by side for the user to tidy.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from . import change_features
from .model import TrainedModel

NAME = "changes"
REPLACES, RESTATES, OTHER = "replaces", "restates", "other"
CLASSES = (OTHER, REPLACES, RESTATES)


@dataclass(frozen=True)
class Existing:
    content: str
    kind: str
    vector: np.ndarray


@dataclass(frozen=True)
class Verdict:
    label: str  # REPLACES, RESTATES or OTHER (add the statement as a new memory)
    index: int | None  # which of the neighbours it replaces or restates
    probability: float


def pair_probabilities(model: TrainedModel, new: str, new_kind: str, v_new: np.ndarray,
                       neighbours: Sequence[Existing]) -> np.ndarray:
    """One row per neighbour, one column per class in CLASSES order."""
    rows = np.array([change_features.row(new, new_kind, n.content, n.kind, v_new, n.vector) for n in neighbours])
    probabilities = model.probabilities(rows)
    order = [model.classes.index(name) for name in CLASSES]
    return probabilities[:, order]


def choose(model: TrainedModel, new: str, new_kind: str, v_new: np.ndarray, neighbours: Sequence[Existing]) -> Verdict:
    """Restated or replaced, whichever clears its threshold by more; else a new memory."""
    if not neighbours:
        return Verdict(OTHER, None, 1.0)
    p = pair_probabilities(model, new, new_kind, v_new, neighbours)
    thresholds = {REPLACES: float(model.meta["replace_threshold"]), RESTATES: float(model.meta["restate_threshold"])}
    best = Verdict(OTHER, None, 0.0)
    margin = 0.0
    for label in (REPLACES, RESTATES):
        column = p[:, CLASSES.index(label)]
        i = int(column.argmax())
        if column[i] >= thresholds[label] and column[i] - thresholds[label] >= margin:
            best, margin = Verdict(label, i, float(column[i])), float(column[i] - thresholds[label])
    return best

