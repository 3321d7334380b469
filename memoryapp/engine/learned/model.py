"""A trained model as shipped: a small feed-forward net (a logistic regression is one layer) read from
an .npz in weights/, run with numpy alone so the default install needs no scikit-learn.

One file per model, written by `python -m bench.train` (bench/train/); each records the embedder whose
vectors it was trained on: under another EMBEDDING_MODEL it is not used (`usable`), and the system check
in memoryapp/checks.py tells the operator the command that retrains. The folder is LEARNED_WEIGHTS_DIR
(`weights_dir()`): the shipped weights/ unless the settings name another (`bench.train --out DIR`
writes one, e.g. for another embedder, without touching the shipped files).
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np
from django.conf import settings
from django.core.signals import setting_changed

WEIGHTS_DIR = Path(__file__).resolve().parent / "weights"  # the shipped models: LEARNED_WEIGHTS_DIR's default
RETRAIN_COMMAND = "manage.py train"
_RULES_ONLY: ContextVar[bool] = ContextVar("rules_only", default=False)


@contextmanager
def rules_only():
    """Within this block no learned model is used: the hand-written rules decide (the benchmarks'
    `offline` column, beside `learned`)."""
    token = _RULES_ONLY.set(True)
    try:
        yield
    finally:
        _RULES_ONLY.reset(token)


@dataclass(frozen=True)
class TrainedModel:
    """Standardise, then dense layers with ReLU between; the last gives a sigmoid (one output) or softmax."""

    name: str
    layers: tuple[tuple[np.ndarray, np.ndarray], ...]  # (weights: in x out, bias: out)
    mean: np.ndarray
    scale: np.ndarray
    meta: dict = field(default_factory=dict)  # classes, threshold, embedder, features, data hash, seed
    extra: dict[str, np.ndarray] = field(default_factory=dict)  # arrays a model keeps beside its layers

    @property
    def classes(self) -> list[str]:
        return list(self.meta.get("classes", ["no", "yes"]))

    @property
    def threshold(self) -> float:
        return float(self.meta.get("threshold", 0.5))

    @property
    def embedder(self) -> str:
        return str(self.meta.get("embedder", ""))

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        """Rows of features in, one probability per class out (two columns for a yes/no model)."""
        x = (np.atleast_2d(np.asarray(features, dtype=np.float64)) - self.mean) / self.scale
        for n, (weights, bias) in enumerate(self.layers):
            x = x @ weights + bias
            if n < len(self.layers) - 1:
                x = np.maximum(x, 0.0)
        if x.shape[1] == 1:
            yes = 1.0 / (1.0 + np.exp(-x[:, 0]))
            return np.column_stack([1.0 - yes, yes])
        x = np.exp(x - x.max(axis=1, keepdims=True))
        return x / x.sum(axis=1, keepdims=True)

    def yes(self, features: np.ndarray) -> np.ndarray:
        """For a yes/no model: the probability of yes per row."""
        return self.probabilities(features)[:, -1]

    def save(self, path: Path | None = None) -> Path:
        path = path or weights_dir() / f"{self.name}.npz"
        arrays = {f"w{n}": w for n, (w, _) in enumerate(self.layers)} | {
            f"b{n}": b for n, (_, b) in enumerate(self.layers)
        }
        np.savez_compressed(
            path,
            mean=self.mean,
            scale=self.scale,
            meta=np.array(json.dumps(self.meta, sort_keys=True)),
            **{k: v.astype(np.float32) for k, v in arrays.items()},  # type: ignore[arg-type]  # numpy's stub types **kwds as allow_pickle
            **{f"x_{k}": v for k, v in self.extra.items()},  # type: ignore[arg-type]
        )
        load.cache_clear()  # a later load in this process reads what was just written
        return path


def read(path: Path) -> TrainedModel:
    with np.load(path, allow_pickle=False) as data:
        depth = sum(1 for key in data.files if key.startswith("w"))
        layers = tuple((data[f"w{n}"].astype(np.float64), data[f"b{n}"].astype(np.float64)) for n in range(depth))
        return TrainedModel(
            name=path.stem,
            layers=layers,
            mean=data["mean"],
            scale=data["scale"],
            meta=json.loads(str(data["meta"])),
            extra={key.removeprefix("x_"): data[key] for key in data.files if key.startswith("x_")},
        )


def weights_dir() -> Path:
    """Where the models are read and written: LEARNED_WEIGHTS_DIR (the shipped weights/ by default)."""
    return Path(settings.LEARNED_WEIGHTS_DIR)


@cache
def load(name: str) -> TrainedModel | None:
    """The model `name` in weights_dir(), or None when there is none (not trained yet)."""
    path = weights_dir() / f"{name}.npz"
    return read(path) if path.exists() else None


def _on_setting_changed(setting: str, **kwargs) -> None:
    if setting == "LEARNED_WEIGHTS_DIR":
        load.cache_clear()


setting_changed.connect(_on_setting_changed)


def usable(name: str) -> TrainedModel | None:
    """The model, when it was trained on the vectors of the embedder configured now; else None (the
    caller falls back to its rules)."""
    if _RULES_ONLY.get():
        return None
    model = load(name)
    if model is None or model.embedder != settings.EMBEDDING_MODEL:
        return None
    return model


def mismatched() -> list[TrainedModel]:
    """Models in weights_dir() trained on another embedder than EMBEDDING_MODEL."""
    models = (load(path.stem) for path in sorted(weights_dir().glob("*.npz")))
    return [m for m in models if m is not None and m.embedder != settings.EMBEDDING_MODEL]
