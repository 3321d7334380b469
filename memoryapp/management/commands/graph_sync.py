"""`manage.py graph_sync`: bring the temporal graph in line with the memory rows, in this process.

manage.py graph_sync                    sync every pending memory (e.g. after configuring a model)
manage.py graph_sync --failed           also retry the ones marked failed
manage.py graph_sync --user 7           only that user's memories
manage.py graph_sync --rebuild --user 7 drop that user's graph and rebuild it from Postgres
manage.py graph_sync --rebuild          the same for every user with memories (the whole install)
manage.py graph_sync --status           counts by sync state and the graph's health; changes nothing
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from django.db.models import Count

from memoryapp.graph import GraphError, get_graph, sync


class Command(BaseCommand):
    help = "Sync pending memories to the temporal graph (or rebuild a user's graph) with a progress line per memory."

    def add_arguments(self, parser):
        parser.add_argument("--user", type=int, help="only this user id")
        parser.add_argument("--failed", action="store_true", help="also retry memories marked failed")
        parser.add_argument(
            "--rebuild",
            action="store_true",
            help="drop and rebuild the graph from Postgres (of --user, else of every user)",
        )
        parser.add_argument("--status", action="store_true", help="show counts and graph health only")

    def handle(self, *args, user: int | None, failed: bool, rebuild: bool, status: bool, **options):
        if status:
            return self._status(user)
        try:
            graph = get_graph()
        except GraphError as exc:
            raise CommandError(exc.message) from None
        if not sync.graph_can_write(graph):
            raise CommandError(
                "GRAPH_EXTRACTION=model and no language model is configured (offline mode), so the graph cannot "
                "be built; memories stay pending. Set OPENAI_BASE_URL / OPENAI_API_KEY (or GRAPH_EXTRACTION=rules) "
                "and run this again."
            )
        if rebuild:
            return self._rebuild(graph, [user] if user is not None else self._users_with_memories())
        counts = sync.backfill(user_id=user, include_failed=failed, progress=self._progress)
        if not counts:
            self.stdout.write("nothing to sync: no pending memories")
            return
        summary = ", ".join(f"{n} {outcome}" for outcome, n in sorted(counts.items()))
        self.stdout.write(self.style.SUCCESS(f"done: {summary}"))
        if counts.get("unavailable"):
            raise CommandError("the graph became unavailable; the remaining memories stay pending")

    def _users_with_memories(self) -> list[int]:
        from memoryapp.models import Memory

        return list(Memory.objects.order_by("user_id").values_list("user_id", flat=True).distinct())

    def _rebuild(self, graph, users: list[int]) -> None:
        total = 0
        for n, user_id in enumerate(users, 1):
            self.stdout.write(f"({n}/{len(users)}) rebuilding the graph of user {user_id} from Postgres ...")
            try:
                episodes = sync.rebuild_from_rows(graph, user_id, progress=self._progress)
            except GraphError as exc:
                raise CommandError(
                    f"rebuild stopped: {exc.message} (run it again; rows not done stay pending)"
                ) from exc
            total += len(episodes)
        self.stdout.write(self.style.SUCCESS(f"rebuilt: {total} memories have episodes ({len(users)} users)"))

    def _progress(self, n: int, total: int, memory_id: int, outcome: object, seconds: float) -> None:
        label = getattr(outcome, "value", outcome)
        self.stdout.write(f"[{n}/{total}] memory {memory_id}: {label} ({seconds:.1f} s)")
        self.stdout.flush()

    def _status(self, user: int | None) -> None:
        from memoryapp.models import Memory

        rows = Memory.objects.all() if user is None else Memory.objects.filter(user_id=user)
        for row in rows.values("graph_sync_state").annotate(n=Count("id")).order_by("graph_sync_state"):
            self.stdout.write(f"{row['graph_sync_state']}: {row['n']}")
        try:
            health = get_graph().health()
            self.stdout.write(f"graph {health.backend}: {'ok' if health.ok else 'DOWN'} {health.detail}")
        except GraphError as exc:
            self.stdout.write(f"graph: {exc.message}")
