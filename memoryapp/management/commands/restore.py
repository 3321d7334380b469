"""`manage.py restore PATH`: put a backup made by `manage.py backup` (or pg_dump -Fc) back into the app's
database, replacing what is there, then rebuild the temporal graph from the restored rows.

    manage.py restore var/backups/memoryapp-20261125-143000.dump          asks to type "yes"
    manage.py restore var/backups/memoryapp-20261125-143000.dump --yes    for scripts

Stop the app (web, worker, beat) first: they would write between the backup's rows.
"""

from __future__ import annotations

import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError, connection, connections

from memoryapp.stack import NOT_RUNNING, backup
from memoryapp.stack.control import embedded_server_stopped


class Command(BaseCommand):
    help = "Replace the app's database with a backup, then rebuild the graph from Postgres."

    def add_arguments(self, parser):
        parser.add_argument("path", help="a file written by manage.py backup")
        parser.add_argument("--yes", action="store_true", help="do not ask before replacing the database")

    def handle(self, *args, path: str, yes: bool, **options):
        if embedded_server_stopped(postgres=True):
            raise CommandError(NOT_RUNNING)
        source = Path(path).expanduser().resolve()
        db = connection.settings_dict
        try:
            info = backup.describe(source, db)
        except backup.BackupError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"{source}: backup of database {info.dbname} made {info.created}, {info.tables} tables")
        if not yes:
            self._confirm(db["NAME"])
        users_before = self._user_ids()
        self.stdout.write(f"restoring into database {db['NAME']} ...")
        started = time.monotonic()
        # Our own open connections would hold locks on the tables being replaced (and cache pgvector's type).
        connections.close_all()
        try:
            backup.restore(source, db)
        except backup.BackupError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(self.style.SUCCESS(f"restored in {time.monotonic() - started:.1f} s"))
        self._rebuild_graph(gone=users_before - self._user_ids())

    @staticmethod
    def _user_ids() -> set[int]:
        from django.contrib.auth import get_user_model

        try:
            return set(get_user_model().objects.values_list("pk", flat=True))
        except DatabaseError:  # an empty database: nothing to compare
            return set()

    def _confirm(self, name: str) -> None:
        question = f"This replaces everything in database {name} with the backup. Type yes to go on: "
        try:
            answer = input(question)
        except EOFError:
            answer = ""
        if answer.strip().lower() != "yes":
            raise CommandError("nothing restored (answer yes, or pass --yes)")

    def _rebuild_graph(self, gone: set[int]) -> None:
        """The graph is derived data: drop each user's and re-add their restored memories. Accounts made after
        the backup are gone, and their ids will be handed out again: their graphs go too."""
        from memoryapp.graph import GraphError, get_graph, sync
        from memoryapp.graph.conf import graph_config

        if graph_config().backend == "off":
            self.stdout.write("graph: off (GRAPH_BACKEND=off), nothing to rebuild")
            return
        try:
            graph = get_graph()
        except GraphError as exc:
            self.stdout.write(self.style.WARNING(f"graph not rebuilt: {exc.message}"))
            return
        users = sorted(self._user_ids())
        if not sync.graph_can_write(graph):
            self.stdout.write(
                self.style.WARNING(
                    "graph not rebuilt: GRAPH_EXTRACTION=model and no language model is configured (recall answers "
                    "from Postgres alone). "
                    "Once one is, run `manage.py graph_sync --rebuild --user ID` for each user: "
                    + (", ".join(map(str, users)) or "there are none")
                )
            )
            return
        for user_id in sorted(gone):
            try:
                graph.drop_user(user_id)
            except GraphError as exc:
                self.stdout.write(
                    self.style.WARNING(
                        f"the graph of user {user_id}, made after the backup, was not dropped: {exc.message}"
                    )
                )
        for n, user_id in enumerate(users, 1):
            self.stdout.write(f"[{n}/{len(users)}] rebuilding the graph of user {user_id} from Postgres ...")
            try:
                episodes = sync.rebuild_from_rows(graph, user_id)
            except GraphError as exc:
                self.stdout.write(
                    self.style.WARNING(
                        f"user {user_id}: {exc.message}; the memories not done stay pending and the graph drain "
                        f"syncs them (or run `manage.py graph_sync --rebuild --user {user_id}`)"
                    )
                )
                continue
            self.stdout.write(f"user {user_id}: {len(episodes)} memories have episodes")
        self.stdout.write(self.style.SUCCESS("graph rebuilt from Postgres"))
