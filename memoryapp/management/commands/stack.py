"""`manage.py stack stop|status`: the embedded servers under var/ (nothing else)."""
from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand

from memoryapp.stack import stop_postgres, stop_redis


class Command(BaseCommand):
    help = "Show or stop the embedded Postgres and Redis under the var directory."

    def add_arguments(self, parser):
        parser.add_argument("action", choices=["status", "stop"])

    def handle(self, *args, action: str, **options):
        if action == "stop":
            stop_redis(settings.VAR_DIR)
            stop_postgres(settings.VAR_DIR)
            self.stdout.write("embedded servers stopped")
        else:
            self.stdout.write(f"DATABASE_URL={settings.DATABASE_URL}\nREDIS_URL={settings.REDIS_URL}")
