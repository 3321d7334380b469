"""Markdown tables from the results JSON, for docs/benchmarks.md.

    python -m bench.report [--locomo bench/results/locomo_dev.json] [--variants ...json] [--scale ...json]
                           [--chat before=bench/results/chat_before.json ... --chat-plot docs/img/chat.png]
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from .dataset import CATEGORY_NAMES

RESULTS = Path(__file__).resolve().parent / "results"


def _recall_cells(recall: dict, ks: list[str]) -> str:
    return " | ".join(f"{recall[k]:.3f}" for k in ks)


def locomo_tables(result: dict) -> str:
    ks = [str(k) for k in result["k"]]
    head = "| | " + " | ".join(f"R@{k}" for k in ks) + " | p50 ms | p95 ms |\n|---|" + "---|" * (len(ks) + 2)
    lat = result["latency_ms"]
    lines = [head,
             f"| memoryapp recall, search only | {_recall_cells(result['recall'], ks)} | "
             f"{lat['recall_without_embedding']['p50']} | {lat['recall_without_embedding']['p95']} |",
             f"| memoryapp recall, with query embedding | {_recall_cells(result['recall'], ks)} | "
             f"{lat['recall_with_embedding']['p50']} | {lat['recall_with_embedding']['p95']} |"]
    for name, peer in result.get("peers", {}).items():
        lines.append(f"| {name} | {_recall_cells(peer['recall'], ks)} | {peer['latency_ms']['p50']} | "
                     f"{peer['latency_ms']['p95']} |")
    sources = [("memoryapp", result["by_category"])] + [(n, p["by_category"]) for n, p in result.get("peers", {}).items()]
    cat = ["| category | n | " + " | ".join(f"{name} R@10" for name, _ in sources) + " |",
           "|---|---|" + "---|" * len(sources)]
    for c, values in result["by_category"].items():
        cells = " | ".join(f"{by.get(c, {}).get('10', float('nan')):.3f}" for _, by in sources)
        cat.append(f"| {c} {CATEGORY_NAMES.get(int(c), '')} | {values['n']} | {cells} |")
    return "\n".join(lines) + "\n\n" + "\n".join(cat)


def score_table(result: dict) -> str:
    lines = []
    for which in ("top1", "top3"):
        dist = result["score_distribution"][which]
        rel, irr = dist["relevant"], dist["irrelevant"]
        lines += [f"**{which}** (relevant n={rel['n']}, irrelevant n={irr['n']})", "",
                  "| | p5 | p25 | p50 | p75 | p95 |", "|---|---|---|---|---|---|",
                  "| relevant | " + " | ".join(str(rel[f"p{q}"]) for q in (5, 25, 50, 75, 95)) + " |",
                  "| irrelevant | " + " | ".join(str(irr[f"p{q}"]) for q in (5, 25, 50, 75, 95)) + " |", "",
                  "| threshold | relevant kept | irrelevant dropped | precision of kept |", "|---|---|---|---|"]
        for t, row in dist["threshold_sweep"].items():
            lines.append(f"| {t} | {row['relevant_kept']} | {row['irrelevant_dropped']} | {row['precision_kept']} |")
        lines.append("")
    return "\n".join(lines)


def variant_table(result: dict) -> str:
    ks = [str(k) for k in result["k"]]
    lines = ["| variant | " + " | ".join(f"R@{k}" for k in ks) + " |", "|---|" + "---|" * len(ks),
             f"| baseline (RECALL_POSTGRES_ONLY) | {_recall_cells(result['recall'], ks)} |"]
    for name, v in result["variants"].items():
        lines.append(f"| {name} | {_recall_cells(v['recall'], ks)} |")
    return "\n".join(lines)


def scale_table(result: dict) -> str:
    lines = ["| memories | recall p50 / p95 | recall, trigram off p50 / p95 | page search p50 / p95 | "
             "page search, trigram off | page list p50 / p95 | writes/s (vectors given) | writes/s (embedding) |",
             "|---|---|---|---|---|---|---|---|"]
    for r in result["sizes"]:
        cell = lambda key: f"{r[key]['p50']} / {r[key]['p95']} (n={r[key]['n']})"  # noqa: E731
        lines.append(f"| {r['size']:,} | {cell('recall_ms')} | {cell('recall_no_trigram_ms')} | "
                     f"{cell('page_search_ms')} | {cell('page_search_no_trigram_ms')} | {cell('page_list_ms')} | "
                     f"{r['write_per_s_precomputed']} | {r['write_per_s_with_embedding']} |")
    return "\n".join(lines)


def plot_locomo(result: dict, path: Path) -> None:
    """Recall@k of ours and each peer, grouped by k."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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


CHAT_METRICS = (("need_hit_at_3", "need-hit@3 (higher)"), ("precision", "precision (higher)"),
                ("no_memory_injection_rate", "memory handed to a no-memory turn (lower)"))


def plot_chat(runs: list[tuple[str, dict]], path: Path, languages: tuple[str, ...] = ("en", "zh")) -> None:
    """bench.chat per language: one panel per metric, a bar per run and language (all splits together)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.report")
    parser.add_argument("--locomo", type=Path, default=RESULTS / "locomo_dev.json")
    parser.add_argument("--variants", type=Path, default=RESULTS / "locomo_dev_variants.json")
    parser.add_argument("--scale", type=Path, default=RESULTS / "scale.json")
    parser.add_argument("--plot", type=Path, help="also draw the LoCoMo recall bars here (PNG)")
    parser.add_argument("--chat", nargs="+", metavar="LABEL=RESULT.json", default=[],
                        help="bench.chat runs to draw side by side (with --chat-plot)")
    parser.add_argument("--chat-plot", type=Path, help="where to draw the bench.chat runs (PNG)")
    args = parser.parse_args(argv)
    if args.chat and args.chat_plot:
        runs = [(label, json.loads(Path(file).read_text())) for label, file in (c.split("=", 1) for c in args.chat)]
        plot_chat(runs, args.chat_plot)
    if args.plot and args.locomo.exists():
        plot_locomo(json.loads(args.locomo.read_text()), args.plot)
    if args.locomo.exists():
        locomo = json.loads(args.locomo.read_text())
        print(locomo_tables(locomo), end="\n\n")
        print(score_table(locomo), end="\n\n")
    if args.variants.exists():
        print(variant_table(json.loads(args.variants.read_text())), end="\n\n")
    if args.scale.exists():
        print(scale_table(json.loads(args.scale.read_text())))


if __name__ == "__main__":
    main()
