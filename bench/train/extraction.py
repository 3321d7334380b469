"""Trains `extraction`: is this piece of a user's message worth remembering, and as which kind (one
multi-class model with a `none` class), on the embedder's vectors plus cheap features
(memoryapp/engine/learned/extraction.py).

Data: bench/extraction_cases/train/*.jsonl (written for this project; see the README there). The dev
windows (bench/extraction_cases/dev) choose the model (logistic regression or a small MLP) and the
threshold; the holdout is never read here.

    python -m bench.train extraction
"""

from __future__ import annotations

import hashlib
import json
import unicodedata

import numpy as np

from bench.extraction_data import CASES_DIR, load_windows
from bench.runtime import REPO

from . import diversity

NAME = "extraction"
CLASSES = ["none", "preference", "fact", "lesson", "goal"]
TRAIN_DIR = CASES_DIR / "train"
CACHE_DIR = REPO / "var" / "train-cache"
PROBE_COUNT = 8  # sentences whose probabilities the weights file keeps, to check a load reproduces them


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def training_rows() -> tuple[list[dict], str]:
    paths = sorted(TRAIN_DIR.glob("*.jsonl"))
    raw = b"".join(p.read_bytes() for p in paths)
    rows = [json.loads(line) for p in paths for line in p.read_text(encoding="utf-8").splitlines() if line.strip()]
    return rows, hashlib.sha256(raw).hexdigest()


def dev_pieces() -> tuple[list, list[str], list[tuple[str, int]]]:
    """Every scored piece of the dev windows with its label (the kind of the expected memory whose
    words it holds, else none) and its sentence (window id, index)."""
    from memoryapp.engine.learned.extraction import pieces

    out, labels, sentences = [], [], []
    for window in load_windows(("dev",)):
        messages = [{"role": role, "content": text} for role, text in window.messages]
        for piece in pieces(messages):
            label = "none"
            for want in window.expected:
                if any(_fold(word) in _fold(piece.text) for word in want.must_contain):
                    label = want.kind
                    break
            out.append(piece)
            labels.append(label)
            sentences.append((window.id, piece.sentence))
    return out, labels, sentences


def vectors(texts: list[str]) -> np.ndarray:
    """Embeddings, cached per text in var/ (never committed): a retrain embeds only new sentences."""
    from django.conf import settings

    from memoryapp.engine.learned.extraction import embed

    path = CACHE_DIR / f"extraction-{hashlib.sha256(settings.EMBEDDING_MODEL.encode()).hexdigest()[:12]}.npz"
    cached: dict[str, np.ndarray] = {}
    if path.exists():
        with np.load(path) as data:
            cached = dict(zip(data["keys"].tolist(), data["vectors"], strict=True))
    keys = [hashlib.sha1(t.encode()).hexdigest() for t in texts]
    missing = sorted({k: t for k, t in zip(keys, texts, strict=True) if k not in cached}.items())
    for start in range(0, len(missing), 256):
        chunk = missing[start : start + 256]
        cached.update(zip([k for k, _ in chunk], embed([t for _, t in chunk]), strict=True))
    if missing:
        CACHE_DIR.mkdir(parents=True, exist_ok=True)
        np.savez(path, keys=np.array(list(cached)), vectors=np.vstack(list(cached.values())))
    return np.vstack([cached[k] for k in keys])


def _candidates(seed: int) -> dict:
    from sklearn.linear_model import LogisticRegression
    from sklearn.neural_network import MLPClassifier

    return {
        "logreg_C0.3": LogisticRegression(C=0.3, max_iter=3000, random_state=seed),
        "mlp_64": MLPClassifier(
            hidden_layer_sizes=(64,), alpha=1e-3, max_iter=400, early_stopping=True, random_state=seed
        ),
    }


def _layers(classifier) -> tuple:
    if hasattr(classifier, "coefs_"):
        return tuple((w, b) for w, b in zip(classifier.coefs_, classifier.intercepts_, strict=True))
    return ((classifier.coef_.T.copy(), classifier.intercept_.copy()),)


def _best_threshold(keep: np.ndarray, positive: np.ndarray) -> tuple[float, dict]:
    """The threshold with the best F1 on dev (ties: the higher threshold, fewer false memories)."""
    best = (-1.0, 0.5, {})
    for threshold in np.round(np.arange(0.05, 0.96, 0.01), 2):
        chosen = keep >= threshold
        tp = int((chosen & positive).sum())
        precision = tp / max(int(chosen.sum()), 1)
        recall = tp / max(int(positive.sum()), 1)
        f1 = 2 * precision * recall / max(precision + recall, 1e-9)
        if f1 >= best[0]:
            best = (
                f1,
                float(threshold),
                {"precision": round(precision, 4), "recall": round(recall, 4), "f1": round(f1, 4)},
            )
    return best[1], best[2]


def _dev_scores(model, x: np.ndarray) -> np.ndarray:
    return 1.0 - model.probabilities(x)[:, CLASSES.index("none")]


def train(seed: int) -> dict:
    from django.conf import settings
    from sklearn.preprocessing import StandardScaler

    from memoryapp.engine.learned.extraction import FEATURES, Piece, clauses_of, features, pieces_of
    from memoryapp.engine.learned.model import TrainedModel

    rows, data_hash = training_rows()
    # A training sentence is scored as the engine scores it: its pieces (a question's context clause).
    train_pieces, labels = [], []
    for row in rows:
        for text, whole in pieces_of(row["text"]) or [(row["text"], True)]:
            # A clause of a memory sentence may be the request beside it: only the whole and the
            # context clause of "<memory>, <question>" carry the sentence's label.
            context = row.get("register") == "context_then_question"
            if whole or context or row["label"] == "none":
                tail = context and not whole and text == clauses_of(row["text"])[-1]  # the request itself
                train_pieces.append(Piece(text, row.get("previous_assistant", ""), whole=whole))
                labels.append("none" if tail else row["label"])
    texts = [p.text for p in train_pieces]
    train_vectors = vectors(texts)
    x = features(train_pieces, train_vectors)
    y = np.array([CLASSES.index(label) for label in labels])

    dev, dev_labels, dev_sentences = dev_pieces()
    dev_x = features(dev, vectors([p.text for p in dev]))
    dev_positive = np.array([label != "none" for label in dev_labels])

    scaler = StandardScaler().fit(x)
    tried = {}
    best_name, best = None, None
    for name, classifier in _candidates(seed).items():
        classifier.fit(scaler.transform(x), y)
        model = TrainedModel(NAME, _layers(classifier), scaler.mean_, scaler.scale_, {"classes": CLASSES})
        threshold, at = _best_threshold(_dev_scores(model, dev_x), dev_positive)
        tried[name] = {"threshold": threshold, **at}
        if best is None or at["f1"] > tried[best_name]["f1"]:
            best_name, best = name, (model, threshold)
    model, threshold = best
    probe = [p.text for p in dev[:PROBE_COUNT]]
    probe_keep = _dev_scores(model, dev_x[:PROBE_COUNT])
    meta = {
        "classes": CLASSES,
        "threshold": threshold,
        "embedder": settings.EMBEDDING_MODEL,
        "features": list(FEATURES),
        "model": best_name,
        "data_sha256": data_hash,
        "seed": seed,
        "train_rows": len(rows),
        "probe": [
            {"text": t, "previous": dev[i].previous, "keep": round(float(k), 6)}
            for i, (t, k) in enumerate(zip(probe, probe_keep, strict=True))
        ],
    }
    shipped = TrainedModel(NAME, model.layers, model.mean, model.scale, meta)
    path = shipped.save()
    by_label = {label: sum(1 for r in rows if r["label"] == label) for label in CLASSES}
    by_language = {
        lang: sum(1 for r in rows if r["language"] == lang) for lang in sorted({r["language"] for r in rows})
    }
    return {
        "model": NAME,
        "chosen": best_name,
        "threshold": threshold,
        "dev_pieces": tried,
        "weights": str(path.relative_to(REPO)),
        "weights_bytes": path.stat().st_size,
        "data": {
            "rows": len(rows),
            "sha256": data_hash,
            "by_label": by_label,
            "by_language": by_language,
            "diversity": diversity.report([r["text"] for r in rows], _unit(vectors([r["text"] for r in rows]))),
        },
        "seed": seed,
    }


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)
