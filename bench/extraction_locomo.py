"""Extraction at turn level on LoCoMo (measured only, never trained on: CC BY-NC): is a turn worth
remembering? A turn is positive when a session observation cites it ("D1:3"); both speakers' turns are
scored, each as the user's message after the other speaker's turn.

`learned` gives each turn a score (the best of its pieces' keep probabilities, as the engine splits it),
hence a precision-recall curve; the rules (`offline`) give one point (they keep something or not).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass(frozen=True)
class Turn:
    key: tuple[str, str]  # (sample id, dia_id)
    text: str
    previous: str


def load(path: Path) -> tuple[list[Turn], set[tuple[str, str]], list[set[tuple[str, str]]]]:
    """Turns, the cited turns, and each observation's cited turns."""
    samples = json.loads(Path(path).read_text())
    turns, cited, observations = [], set(), []
    for sample in samples:
        sid, conversation = sample["sample_id"], sample["conversation"]
        n = 1
        while f"session_{n}" in conversation:
            previous = ""
            for turn in conversation[f"session_{n}"]:
                turns.append(Turn((sid, turn["dia_id"]), str(turn.get("text") or ""), previous))
                previous = str(turn.get("text") or "")
            n += 1
        for by_speaker in sample.get("observation", {}).values():
            for facts in by_speaker.values():
                for _fact, ids in facts:
                    ids = [ids] if isinstance(ids, str) else list(ids)
                    keys = {(sid, i.strip()) for i in ids if isinstance(i, str)}
                    observations.append(keys)
                    cited |= keys
    return turns, cited, observations


def _messages(turn: Turn) -> list[dict]:
    return [{"role": "assistant", "content": turn.previous}, {"role": "user", "content": turn.text}]


def learned_scores(turns: list[Turn], model) -> np.ndarray:
    from memoryapp.engine.learned import extraction as lc

    pieces, owner = [], []
    for n, turn in enumerate(turns):
        for piece in lc.pieces(_messages(turn)):
            if lc._usable(piece):
                pieces.append(piece)
                owner.append(n)
    vectors = np.vstack([lc.embed([p.text for p in pieces[i : i + 256]]) for i in range(0, len(pieces), 256)])
    keep, _ = lc.score(model, pieces, vectors)
    scores = np.zeros(len(turns))
    np.maximum.at(scores, np.array(owner, dtype=int), keep)
    return scores


def rules_kept(turns: list[Turn]) -> np.ndarray:
    from memoryapp.engine.llm import defaults

    return np.array([bool(defaults.extract_candidates([_messages(t)[1]]).candidates) for t in turns])


def curve(scores: np.ndarray, positive: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Precision and recall at every distinct score, highest first, and the thresholds."""
    order = np.argsort(-scores, kind="stable")
    s, p = scores[order], positive[order]
    tp, fp = np.cumsum(p), np.cumsum(~p)
    last = np.r_[np.nonzero(np.diff(s))[0], len(s) - 1]  # one point per distinct threshold
    return tp[last] / (tp[last] + fp[last]), tp[last] / max(int(p.sum()), 1), s[last]


def summary(
    scores: np.ndarray, positive: np.ndarray, threshold: float, turns: list[Turn], observations: list[set]
) -> dict:
    precision, recall, _ = curve(scores, positive)
    ap = float(np.sum(np.diff(np.r_[0.0, recall]) * precision))  # average precision: the area under PR
    kept = {t.key for t, s in zip(turns, scores, strict=True) if s >= threshold}
    at = scores >= threshold
    return {
        "turns": len(turns),
        "positive_share": round(float(positive.mean()), 4),
        "pr_auc": round(ap, 4),
        "recall_at_p80": round(float(recall[precision >= 0.8].max(initial=0.0)), 4),
        "precision_at_r80": round(float(precision[recall >= 0.8].max(initial=0.0)), 4),
        "threshold": threshold,
        "at_threshold": _point(at, positive),
        "observation_coverage": round(sum(bool(o & kept) for o in observations) / max(len(observations), 1), 4),
    }


def _point(chosen: np.ndarray, positive: np.ndarray) -> dict:
    tp = int((chosen & positive).sum())
    return {"precision": round(tp / max(int(chosen.sum()), 1), 4), "recall": round(tp / max(int(positive.sum()), 1), 4)}


def measure(path: Path) -> dict:
    """{"learned": {...}, "offline": {...}, "curve": [[recall, precision], ...]} on the file at `path`."""
    from memoryapp.engine.learned.extraction import MODEL_NAME
    from memoryapp.engine.learned.model import usable

    turns, cited, observations = load(path)
    positive = np.array([t.key in cited for t in turns])
    rules = rules_kept(turns)
    kept = {t.key for t, k in zip(turns, rules, strict=True) if k}
    out = {
        "data": str(path),
        "offline": {
            "turns": len(turns),
            "at_threshold": _point(rules, positive),
            "observation_coverage": round(sum(bool(o & kept) for o in observations) / max(len(observations), 1), 4),
        },
    }
    model = usable(MODEL_NAME)
    if model is not None:
        scores = learned_scores(turns, model)
        out["learned"] = summary(scores, positive, model.threshold, turns, observations)
        precision, recall, _ = curve(scores, positive)
        step = max(len(recall) // 200, 1)
        out["curve"] = [
            [round(float(r), 4), round(float(p), 4)] for r, p in zip(recall[::step], precision[::step], strict=True)
        ]
    return out
