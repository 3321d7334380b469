"""`manage.py up`: start the embedded servers, check, migrate, create the demo user (the administrator)
on first run, and run web + worker + beat."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from memoryapp import accounts
from memoryapp.lib.envconf import envint, envstr
from memoryapp.stack.control import start_embedded, stop_embedded
from memoryapp.stack.processes import (
    Child,
    Supervisor,
    child_env,
    listening_socket,
    port_is_free,
    python_module,
    wait_until_serving,
    web_children,
    web_process_count,
)


class Command(BaseCommand):
    help = "Run memoryapp: Daphne (HTTP + websockets), a Celery worker and beat, on the configured stores."

    def add_arguments(self, parser):
        parser.add_argument("--host", default=envstr("HOST", "127.0.0.1"))
        parser.add_argument("--port", type=int, default=int(envstr("PORT", "8000")))
        parser.add_argument("--concurrency", type=int, default=int(envstr("CELERY_CONCURRENCY", "1")))
        parser.add_argument(
            "--web-processes",
            type=int,
            default=envint("WEB_PROCESSES", 0),
            help="Daphne processes sharing the port (0: one per core, at most four)",
        )

    def handle(self, *args, host: str, port: int, concurrency: int, web_processes: int, **options):
        if not port_is_free(host, port):
            raise CommandError(f"port {port} on {host} is taken; stop what uses it, or pass --port / set PORT")
        start_embedded()
        # The database checks (extensions, the embedding dimension) say what to do before anything runs.
        self.check(databases=["default"])
        call_command("migrate", interactive=False, verbosity=0, skip_checks=True)
        self.stdout.write("database ready")
        login = self._ensure_demo_user()

        env = child_env(
            {
                "DATABASE_URL": settings.DATABASE_URL,
                "REDIS_URL": settings.REDIS_URL,
                "MEMORYAPP_VAR_DIR": str(settings.VAR_DIR),
            }
        )
        sock = listening_socket(host, port)
        webs = web_children(sock, web_process_count(web_processes))
        supervisor = Supervisor(
            [
                *webs,
                Child(
                    "worker",
                    python_module(
                        "celery",
                        "-A",
                        "memoryapp",
                        "worker",
                        "-l",
                        "INFO",
                        "--concurrency",
                        str(concurrency),
                        "-Q",
                        "celery,graph",
                        "-n",
                        f"worker-{port}@%h",
                    ),
                ),
                Child(
                    "beat",
                    python_module(
                        "celery", "-A", "memoryapp", "beat", "-l", "INFO", "-s", settings.CELERY_BEAT_SCHEDULE_FILENAME
                    ),
                ),
            ],
            env,
        )
        supervisor.start()
        sock.close()  # the children hold it now
        try:
            if not wait_until_serving(host, port, 60, alive=lambda: all(w.process.poll() is None for w in webs)):
                supervisor.stop()
                raise CommandError("the web server did not start; see the messages above")
            shown_host = "localhost" if host in ("127.0.0.1", "0.0.0.0") else host
            self.stdout.write(
                self.style.SUCCESS(f"memoryapp is running at http://{shown_host}:{port}/  (Ctrl-C to stop)")
            )
            if login:
                self.stdout.write(f"demo login: {login}")
            code = supervisor.run_until_signal()
        finally:
            supervisor.stop()
            stop_embedded()
        self.stdout.write("stopped")
        if code:
            raise CommandError("a process exited unexpectedly")

    def _ensure_demo_user(self) -> str | None:
        """On the first run (no users yet) create `demo`, the install's first account and so its
        administrator (accounts.py); its login is kept in var/demo-login.txt."""
        path = settings.VAR_DIR / "demo-login.txt"
        User = get_user_model()
        if not User.objects.exists():
            password = secrets.token_urlsafe(9)
            demo = User(username="demo")
            demo.set_password(password)
            accounts.create_account(demo)
            path.write_text(f"demo / {password}\n")
            path.chmod(0o600)
        if path.exists() and User.objects.filter(username="demo").exists():
            return path.read_text().strip()
        return None
