"""`manage.py purge_deleted`: what the hourly beat does, now: purge memories deleted long enough ago.

manage.py purge_deleted               deleted more than DELETED_RETENTION_DAYS (30) days ago
manage.py purge_deleted --days 7
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from memoryapp.engine.memories import purge


class Command(BaseCommand):
    help = "Delete forever the memories soft-deleted more than DELETED_RETENTION_DAYS days ago."

    def add_arguments(self, parser):
        parser.add_argument("--days", type=int, help="instead of DELETED_RETENTION_DAYS")

    def handle(self, *args, days: int | None, **options):
        if days is not None and days < 0:
            raise CommandError("--days must be 0 or more")
        count = purge.purge_expired(days=days)
        self.stdout.write(self.style.SUCCESS(f"{count} memory(ies) purged"))
