"""`manage.py stack start|stop|status`: the embedded servers under var/ (nothing else)."""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand

from memoryapp import stack
from memoryapp.stack.control import start_embedded, stop_embedded


class Command(BaseCommand):
    help = "Start, stop or show the embedded Postgres and Redis under the var directory."
    requires_system_checks = []  # `stop` must work whatever the checks would say

    def add_arguments(self, parser):
        parser.add_argument("action", choices=["start", "status", "stop"])

    def handle(self, *args, action: str, **options):
        if action == "start":
            start_embedded()
            self.stdout.write("embedded servers running")
        elif action == "stop":
            stop_embedded()
            self.stdout.write("embedded servers stopped")
        else:
            for name, embedded, running, url in (
                ("postgres", settings.EMBEDDED_POSTGRES, stack.postgres_running, settings.DATABASE_URL),
                ("redis", settings.EMBEDDED_REDIS, stack.redis_running, settings.REDIS_URL),
            ):
                if embedded:
                    state = "running" if running(settings.VAR_DIR) else "stopped"
                    self.stdout.write(f"{name}: embedded, {state}  {url}")
                else:  # the URL may hold a password: not printed
                    self.stdout.write(f"{name}: external (from the environment)")
