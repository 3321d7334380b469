"""Learned change detection: what a new statement does to the user's nearest memories, with no model
configured. The shipped model (weights/changes.npz, trained by bench/train/changes.py) reads each
(statement, neighbour) pair and says `replaces` (a new value for the same thing), `restates` (the same
thing again) or `other` (a resemblance, or unrelated).

A replacement must clear a high threshold, chosen on the dev pairs so that wrong replacements stay
under 2 %: superseding a memory the user still holds true is data loss, a missed change only leaves
two versions side by side for the user to tidy.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from . import change_features
from .model import TrainedModel
from .slots import may_replace, new_value, restated, slots_of, theirs

NAME = "changes"
REPLACES, RESTATES, OTHER = "replaces", "restates", "other"
ASK_FLOOR = 0.1  # a change this likely (below replace_threshold) of a memory of the statement's slot is asked about
# A statement that says a change ("switched", "instead", 改用, 换了) is asked about with less: the slot rules do
# not know browsers, gyms or pets, and a question costs the user one click where a stale memory costs a wrong
# answer. Chosen on the `changes` holdout: applied or asked 0.516 -> 0.605, look-alikes asked about 1 % -> 7 %
# (0.10: 0.556 and 6 %).
CUE_ASK_FLOOR = 0.05
SLOT_MARGIN = 2.0  # chosen on the dev windows: how much likelier one memory of a slot must be than another
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
    doubt: int | None = None  # OTHER, but it may replace this neighbour of its slot: ask the user


def pair_probabilities(
    model: TrainedModel, new: str, new_kind: str | None, v_new: np.ndarray, neighbours: Sequence[Existing]
) -> np.ndarray:
    """One row per neighbour, one column per class in CLASSES order. `new_kind` None: each pair as if the
    statement were of its neighbour's kind."""
    rows = np.array(
        [change_features.row(new, new_kind or n.kind, n.content, n.kind, v_new, n.vector) for n in neighbours]
    )
    probabilities = model.probabilities(rows)
    order = [model.classes.index(name) for name in CLASSES]
    return probabilities[:, order]


# The hand-written rules' own test, passed in by the caller (engine/llm/defaults.py `rules_see_a_change`):
# this package sits below llm/ and never imports it. (new, new_kind, old, old_kind, cosine) -> a change?
RulesSeeAChange = Callable[[str, str, str, str, float], bool]


def choose(
    model: TrainedModel,
    new: str,
    new_kind: str,
    v_new: np.ndarray,
    neighbours: Sequence[Existing],
    rules: RulesSeeAChange | None = None,
) -> Verdict:
    """Restated or replaced, whichever clears its threshold by more; else, where the weights carry a
    `rules_floor` and the rules are given, a change the rules see (rules_verdict); else a new memory."""
    if not neighbours:
        return Verdict(OTHER, None, 1.0)
    p = pair_probabilities(model, new, new_kind, v_new, neighbours)
    # Only a memory of the same slot can be replaced (engine/learned/slots.py): a new job never replaces a home.
    p[[not may_replace(new, n.content) for n in neighbours], CLASSES.index(REPLACES)] = 0.0
    verdict = _model_verdict(model, p)
    if verdict.label == REPLACES and verdict.index is not None and restated(new, neighbours[verdict.index].content):
        verdict = Verdict(RESTATES, verdict.index, verdict.probability)  # the same value again: no change
    if verdict.label == OTHER:
        verdict = slot_verdict(p, new, neighbours)
    if verdict.label == OTHER and rules is not None and model.meta.get("rules_floor") is not None:
        verdict = rules_verdict(float(model.meta["rules_floor"]), p, new, new_kind, v_new, neighbours, rules)
    if verdict.label == OTHER:
        # The kind the extractor guessed is often wrong (a switch of browser filed as a lesson): whether to
        # ask reads each pair as if the statement were of its neighbour's kind.
        either = np.maximum(p, pair_probabilities(model, new, None, v_new, neighbours))
        either[[not may_replace(new, n.content) for n in neighbours], CLASSES.index(REPLACES)] = 0.0
        verdict = Verdict(OTHER, None, verdict.probability, doubt=doubt(either, new, neighbours))
    return verdict


def doubt(p: np.ndarray, new: str, neighbours: Sequence[Existing]) -> int | None:
    """The neighbour a statement kept beside may well have replaced, the user's own and not said again: one of
    its slot that the model gives at least ASK_FLOOR, or that `new_value` saw among several of the slot; or,
    when the statement says a change, any the model gives at least CUE_ASK_FLOOR."""
    column = p[:, CLASSES.index(REPLACES)]
    slots = slots_of(new)
    cue = change_features.says_a_change(new)
    doubted = [
        i
        for i, n in enumerate(neighbours)
        if may_replace(new, n.content)
        and not restated(new, n.content)
        and (
            (slots & slots_of(n.content) and (column[i] >= ASK_FLOOR or new_value(new, n.content)))
            or (cue and column[i] >= CUE_ASK_FLOOR)
        )
    ]
    return max(doubted, key=lambda i: column[i]) if doubted else None


def slot_verdict(p: np.ndarray, new: str, neighbours: Sequence[Existing]) -> Verdict:
    """A new value for a single-valued slot the user's memory holds (slots.py `new_value`: where they live,
    work, whom they report to, partner, diet, car, phone, school) replaces it, said in whatever words and
    either language; where several neighbours hold that slot, the one the model finds SLOT_MARGIN times likelier."""
    column = p[:, CLASSES.index(REPLACES)]
    slot = sorted((i for i, n in enumerate(neighbours) if new_value(new, n.content)), key=lambda i: -column[i])
    # Several memories of the slot: the one the model finds far likelier, else a question for the user.
    if len(slot) == 1 or (len(slot) > 1 and column[slot[0]] >= SLOT_MARGIN * column[slot[1]]):
        return Verdict(REPLACES, slot[0], float(column[slot[0]]))
    return Verdict(OTHER, None, 0.0)


# Not the user's own change even with a change word: someone's or something's ("Alex moved his desk",
# "公司新换了一台咖啡机"); the rules would take it for one.
_THEIRS = re.compile(r"\b(?:his|her|their)\b|^\s*(?:公司|单位|学校|部门|团队|组里|店里|楼下|隔壁)", re.I)
_LEADING_NAME = re.compile(r"\s*([A-Z][a-z]+)\b")


def rules_verdict(
    floor: float,
    p: np.ndarray,
    new: str,
    new_kind: str,
    v_new: np.ndarray,
    neighbours: Sequence[Existing],
    rules: RulesSeeAChange,
) -> Verdict:
    """The rules' change (engine/llm/defaults.py: a change word and the same slot: home, work, a shared
    word, a new product for the same use) where the model did not see one: they catch plain changes said
    without the old value ("我搬到杭州了", "We moved to Lisbon"), which the model alone leaves as two
    memories. The model keeps a veto: its probability of a change must reach `floor` (chosen on the
    held-out folds and dev, bench/train/changes.py), and another person's or thing's news, or an
    addition ("also", 也), never replaces by the rules."""
    if _THEIRS.search(new) or change_features.not_the_users(new) or theirs(new):
        return Verdict(OTHER, None, 0.0)
    leading = _LEADING_NAME.match(new)
    column = p[:, CLASSES.index(REPLACES)]
    best: Verdict = Verdict(OTHER, None, 0.0)
    for i, n in enumerate(neighbours):
        if not rules(new, new_kind, n.content, n.kind, change_features.cosine(v_new, n.vector)):
            continue
        if (
            leading
            and leading.group(1) not in ("I", "My", "We", "Our")
            and leading.group(1).lower() in n.content.lower()
        ):
            continue  # "Max has a new ball" beside "My dog is Max": news about Max, not a new Max
        if column[i] >= floor and column[i] > best.probability:
            best = Verdict(REPLACES, i, float(column[i]))
    return best


def _model_verdict(model: TrainedModel, p: np.ndarray) -> Verdict:
    thresholds = {REPLACES: float(model.meta["replace_threshold"]), RESTATES: float(model.meta["restate_threshold"])}
    best = Verdict(OTHER, None, 0.0)
    margin = 0.0
    for label in (REPLACES, RESTATES):
        column = p[:, CLASSES.index(label)]
        i = int(column.argmax())
        if column[i] >= thresholds[label] and column[i] - thresholds[label] >= margin:
            best, margin = Verdict(label, i, float(column[i])), float(column[i] - thresholds[label])
    return best
