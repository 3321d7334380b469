"""The benchmarks' plots (docs/img/), drawn from result JSON. matplotlib is in the bench extras."""

from __future__ import annotations

from pathlib import Path


def matplotlib_missing() -> bool:
    import importlib.util

    return importlib.util.find_spec("matplotlib") is None


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _finish_log_log(fig, ax, path: Path, xlabel: str, ylabel: str, title: str) -> None:
    """Log axes, labels, legend and grid; saved to `path`."""
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)


def plot_locomo(result: dict, path: Path) -> None:
    """Recall@k of ours and each peer, grouped by k."""
    plt = _pyplot()
    systems = [("memoryapp", result["recall"])] + [(n, p["recall"]) for n, p in result.get("peers", {}).items()]
    ks = [str(k) for k in result["k"]]
    fig, ax = plt.subplots(figsize=(7, 3.8))
    width = 0.8 / len(systems)
    for i, (name, recall) in enumerate(systems):
        ax.bar([j + i * width for j in range(len(ks))], [recall[k] for k in ks], width, label=name)
    ax.set_xticks([j + width * (len(systems) - 1) / 2 for j in range(len(ks))], [f"recall@{k}" for k in ks])
    ax.axhline(0.70, color="grey", linewidth=0.8, linestyle=":", label="0.70 goal (@10)")
    ax.set_ylim(0, 1)
    ax.set_title("LoCoMo dev (categories 1-4): turn-level evidence recall")
    ax.legend(fontsize=7)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)


CHAT_METRICS = (
    ("need_hit_at_3", "need-hit@3 (higher)"),
    ("precision", "precision (higher)"),
    ("no_memory_injection_rate", "memory handed to a no-memory turn (lower)"),
)


def plot_chat(runs: list[tuple[str, dict]], path: Path, languages: tuple[str, ...] = ("en", "zh")) -> None:
    """bench.chat per language: one panel per metric, a bar per run and language (all splits together)."""
    plt = _pyplot()
    fig, axes = plt.subplots(1, len(CHAT_METRICS), figsize=(11, 3.6))
    width = 0.8 / len(runs)
    for ax, (metric, title) in zip(axes, CHAT_METRICS):
        for i, (label, result) in enumerate(runs):
            values = [result["by_language"][lang][metric] or 0 for lang in languages]
            ax.bar([j + i * width for j in range(len(languages))], values, width, label=label)
        ax.set_xticks([j + width * (len(runs) - 1) / 2 for j in range(len(languages))], list(languages))
        ax.set_ylim(0, 1)
        ax.set_title(title, fontsize=9)
    axes[0].legend(fontsize=7)
    fig.suptitle("bench.chat: what a chat turn hands the model (240 turns, dev + holdout)", fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)


def plot_scale(rows: list[dict], path: Path) -> None:
    """bench.scale: p50 and p95 of recall and the memories page against the user's memories."""
    plt = _pyplot()
    sizes = [row["size"] for row in rows]
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for key, label in (
        ("recall_ms", "recall"),
        ("recall_no_trigram_ms", "recall, trigram off"),
        ("page_search_ms", "page search"),
        ("page_list_ms", "page list (20)"),
    ):
        (line,) = ax.plot(sizes, [r[key]["p50"] for r in rows], marker="o", label=f"{label} p50")
        ax.plot(
            sizes,
            [r[key]["p95"] for r in rows],
            marker="x",
            linestyle="--",
            color=line.get_color(),
            label=f"{label} p95",
        )
    ax.axhline(15, color="grey", linewidth=0.8, linestyle=":", label="15 ms goal (recall p95)")
    _finish_log_log(
        fig,
        ax,
        path,
        "memories of one user",
        "latency (ms)",
        "memoryapp latency vs memories per user (query embedding excluded)",
    )


TENANT_GROUPS = (("small_user", "small users"), ("mid_user", "mid-sized users"), ("large_user", "the 100k user"))
TENANT_MEASURES = (
    ("recall_ms", "recall"),
    ("recall_with_embedding_ms", "recall + query embedding"),
    ("page_list_ms", "page list"),
    ("page_search_ms", "page search"),
)


def plot_tenants(tenants: dict, path: Path) -> None:
    """bench.scale --tenants: p50 (solid) and p95 (pale) of each measure, one group of bars per kind of user."""
    plt = _pyplot()
    groups = [(key, label) for key, label in TENANT_GROUPS if key in tenants]
    fig, ax = plt.subplots(figsize=(8, 4.2))
    width = 0.8 / len(TENANT_MEASURES)
    for i, (measure, label) in enumerate(TENANT_MEASURES):
        xs = [j + i * width for j in range(len(groups))]
        bars = ax.bar(xs, [tenants[key][measure]["p95"] for key, _ in groups], width, alpha=0.45, label=f"{label}: p95")
        ax.bar(
            xs,
            [tenants[key][measure]["p50"] for key, _ in groups],
            width,
            color=bars.patches[0].get_facecolor(),
            label=f"{label}: p50",
        )
    ax.set_xticks(
        [j + width * (len(TENANT_MEASURES) - 1) / 2 for j in range(len(groups))], [label for _, label in groups]
    )
    ax.axhline(10, color="grey", linewidth=0.8, linestyle=":", label="10 ms goal (small users' recall p95)")
    ax.set_yscale("log")
    ax.set_ylabel("latency (ms)")
    ax.set_title(f"{tenants['rows']:,} memories, {tenants['users']:,} users in one table")
    ax.legend(fontsize=6)
    ax.grid(alpha=0.3, axis="y")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)


def plot_tenants_by_size(runs: list[tuple[str, dict]], path: Path) -> None:
    """Recall p50 and p95 (without the query embedding) against the user's size, one line per labelled
    bench.scale --tenants run: the user's median memories on a log axis."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    for label, tenants in runs:
        groups = [tenants[key] for key, _ in TENANT_GROUPS if key in tenants]
        sizes = [group["memories_per_user"]["median"] for group in groups]
        line = ax.plot(sizes, [g["recall_ms"]["p95"] for g in groups], marker="o", label=f"{label}: p95")[0]
        ax.plot(
            sizes,
            [g["recall_ms"]["p50"] for g in groups],
            marker="o",
            linestyle="--",
            color=line.get_color(),
            alpha=0.6,
            label=f"{label}: p50",
        )
    _finish_log_log(
        fig,
        ax,
        path,
        "the user's memories (median of the group)",
        "recall, without the query embedding (ms)",
        "Recall among 1.1 million memories of 2,001 users, by the user's size",
    )


def plot_load(runs: list[dict], path: Path) -> None:
    """bench.load: p50 and p95 per operation, one group of bars per run."""
    plt = _pyplot()
    operations = sorted({name for run in runs for name in run["latency_ms"]})
    fig, ax = plt.subplots(figsize=(8, 4.2))
    width = 0.8 / len(runs)
    for i, run in enumerate(runs):
        config = run["config"]
        webs = run.get("web_processes_started")
        label = f"{config['model']} model, think {config['think']:g} s" + (
            f", {webs} web process{'es' if webs > 1 else ''}" if webs else ""
        )
        label += f" ({run['chat_turns_per_second']} turns/s)"
        xs = [j + i * width for j in range(len(operations))]
        p95 = [run["latency_ms"].get(op, {}).get("p95", 0) for op in operations]
        p50 = [run["latency_ms"].get(op, {}).get("p50", 0) for op in operations]
        bars = ax.bar(xs, p95, width, alpha=0.45, label=f"{label}: p95")
        ax.bar(xs, p50, width, color=bars.patches[0].get_facecolor(), alpha=1.0, label=f"{label}: p50")
    ax.set_xticks([j + width * (len(runs) - 1) / 2 for j in range(len(operations))], operations, fontsize=7)
    ax.set_yscale("log")
    ax.set_ylabel("latency (ms)")
    ax.set_title(
        f"{runs[0]['config']['sessions']} chat sessions + {runs[0]['config']['readers']} API readers, "
        f"{runs[0]['config']['duration']:g} s, 2 cores"
    )
    ax.legend(fontsize=6)
    ax.grid(alpha=0.3, axis="y")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)


def plot_extraction_pr(result: dict, path: Path) -> Path:
    """bench.extraction's LoCoMo turn-level PR curve as a small SVG, drawn without matplotlib (not in the
    default install): learned's curve and its shipped threshold, the rules' one point."""
    w, h, pad = 420, 320, 40
    x = lambda r: pad + r * (w - 2 * pad)  # noqa: E731
    y = lambda p: h - pad - p * (h - 2 * pad)  # noqa: E731
    points = " ".join(f"{x(r):.1f},{y(p):.1f}" for r, p in result.get("curve", []))
    rules = result["offline"]["at_threshold"]
    learned = result.get("learned", {}).get("at_threshold", {"recall": 0, "precision": 0})
    svg = f"""<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="11">
<rect width="{w}" height="{h}" fill="white"/>
<line x1="{pad}" y1="{h - pad}" x2="{w - pad}" y2="{h - pad}" stroke="black"/><line x1="{pad}" y1="{pad}" x2="{pad}" y2="{h - pad}" stroke="black"/>
<text x="{w / 2}" y="{h - 8}" text-anchor="middle">recall</text><text x="10" y="{h / 2}" transform="rotate(-90 10 {h / 2})" text-anchor="middle">precision</text>
<text x="{pad}" y="{h - pad + 14}" text-anchor="middle">0</text><text x="{w - pad}" y="{h - pad + 14}" text-anchor="middle">1</text>
<text x="{pad - 6}" y="{pad + 4}" text-anchor="end">1</text><text x="{pad - 6}" y="{h - pad}" text-anchor="end">0</text>
<text x="{w / 2}" y="18" text-anchor="middle">LoCoMo dev, turn level: is this turn worth remembering?</text>
<polyline fill="none" stroke="#1f77b4" stroke-width="2" points="{points}"/>
<circle cx="{x(learned["recall"]):.1f}" cy="{y(learned["precision"]):.1f}" r="4" fill="#1f77b4"/>
<circle cx="{x(rules["recall"]):.1f}" cy="{y(rules["precision"]):.1f}" r="5" fill="#d62728"/>
<text x="{w - pad}" y="{pad + 10}" text-anchor="end" fill="#1f77b4">learned (PR-AUC {result.get("learned", {}).get("pr_auc", 0):.2f}; dot: shipped threshold)</text>
<text x="{w - pad}" y="{pad + 26}" text-anchor="end" fill="#d62728">rules (one point)</text>
</svg>
"""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(svg.encode())  # a figure, not a result: results go through runtime.write_result
    return path
