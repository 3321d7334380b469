"""`--graph on off` for the recall benchmarks: sync a user's memories into the temporal graph as the app
does (the outbox, graph/sync.py, a batch of the user's rows at a time), count what it built, and the recall config per mode.

The graph is graphiti on the embedded FalkorDB with GRAPH_EXTRACTION (rules by default: no model)."""

from __future__ import annotations

import time
from collections.abc import Iterable

MODES = ("on", "off")
BUDGET_MS = 2000


def add_argument(parser, tuning: bool = False) -> None:
    """`--graph on off`; with `tuning` (bench.locomo) also the graph's budget and fusion weight."""
    parser.add_argument(
        "--graph",
        nargs="+",
        choices=MODES,
        metavar="on|off",
        help="recall with the temporal graph on and/or off, both in the same run "
        "(each user's memories are synced into the graph first, as the app does)",
    )
    if not tuning:
        return
    parser.add_argument(
        "--graph-budget-ms",
        type=int,
        default=BUDGET_MS,
        help=f"graph recall's time budget with --graph on (default {BUDGET_MS}: what the graph "
        "adds is measured apart from this machine's load; its latency is reported)",
    )
    parser.add_argument("--graph-weight", type=float, help="graph recall's weight in the fusion (default: the app's)")


def with_graph(config, on: bool, budget_ms: int = BUDGET_MS, weight: float | None = None):
    """The benchmark's config with graph recall switched on (the app's weight unless given) or off."""
    update = {"enabled": on, "time_budget_ms": budget_ms}
    if weight is not None:
        update["weight"] = weight
    graph = config.graph.model_copy(update=update)
    return config.model_copy(update={"graph": graph})


def sync_user(user_id: int, memory_ids: Iterable[int]) -> dict:
    """Sync the memories as the app does after a bulk write: the drain queues the user's newest waiting row,
    whose task syncs it with the older ones, a batch at a time; report outcomes, counts and throughput."""
    from memoryapp.graph import get_graph, sync
    from memoryapp.models import Memory

    ids = list(memory_ids)
    newest = Memory.objects.filter(pk__in=ids).order_by("-valid_from", "-id").values_list("id", flat=True).first()
    outcomes: dict[str, int] = {}
    started = time.perf_counter()
    for outcome in sync.sync_through(newest).values() if newest is not None else ():
        outcomes[outcome.value] = outcomes.get(outcome.value, 0) + 1
    seconds = time.perf_counter() - started
    graph = get_graph()
    counts = graph.counts(user_id) if hasattr(graph, "counts") else {}
    return {"memories": len(ids), "seconds": round(seconds, 2), "outcomes": outcomes, **counts}


def memory_ids(user_id: int) -> list[int]:
    from memoryapp.models import Memory

    return list(Memory.objects.filter(user_id=user_id).order_by("valid_from", "id").values_list("id", flat=True))


def drop_user(user_id: int) -> None:
    from memoryapp.graph import sync

    sync.drop_user(user_id)


def merge_sync(total: dict, one: dict) -> dict:
    """Add one user's sync report to the run's; throughput is memories per second over the whole run."""
    for key in ("memories", "seconds", "entities", "edges", "episodes"):
        total[key] = round(total.get(key, 0) + one.get(key, 0), 2)
    for outcome, n in one.get("outcomes", {}).items():
        total.setdefault("outcomes", {})[outcome] = total.get("outcomes", {}).get(outcome, 0) + n
    total["memories_per_s"] = round(total["memories"] / total["seconds"], 1) if total.get("seconds") else None
    return total
