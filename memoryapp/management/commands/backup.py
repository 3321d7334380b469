"""`manage.py backup [PATH]`: a pg_dump (custom format) of the app's database, the whole truth in one file.

manage.py backup                      to var/backups/memoryapp-YYYYmmdd-HHMMSS.dump
manage.py backup /srv/memoryapp.dump
"""

from __future__ import annotations

import time
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import connection
from django.utils import timezone

from memoryapp.stack import NOT_RUNNING, backup
from memoryapp.stack.control import embedded_server_stopped


class Command(BaseCommand):
    help = "Back up the app's database (memories, versions, history, chats, accounts, tokens) to one file."

    def add_arguments(self, parser):
        parser.add_argument("path", nargs="?", help="where to write it (default: var/backups/memoryapp-<time>.dump)")

    def handle(self, *args, path: str | None, **options):
        if embedded_server_stopped(postgres=True):
            raise CommandError(NOT_RUNNING)
        target = Path(path).expanduser().resolve() if path else backup.default_path(settings.VAR_DIR, timezone.now())
        db = connection.settings_dict
        self.stdout.write(f"backing up database {db['NAME']} to {target} ...")
        started = time.monotonic()
        try:
            size = backup.dump(db, target)
        except backup.BackupError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(
            self.style.SUCCESS(
                f"backup written: {target} ({size / 1e6:.1f} MB in {time.monotonic() - started:.1f} s); "
                f"restore it with `manage.py restore {target}`"
            )
        )
