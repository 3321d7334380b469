#!/usr/bin/env python
"""Django's command-line utility; configuration errors print one line instead of a traceback."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryapp.settings")
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line
    from django.db import OperationalError
    from redis.exceptions import ConnectionError as RedisConnectionError

    from memoryapp.stack import NOT_RUNNING, StackError

    try:
        from django.conf import settings

        _ = settings.INSTALLED_APPS  # load settings now, so their errors are caught here
        execute_from_command_line(sys.argv)
    except (StackError, ImproperlyConfigured) as exc:
        sys.exit(f"memoryapp: {exc}")
    except (OperationalError, RedisConnectionError) as exc:
        from memoryapp.stack.control import embedded_server_stopped

        database = isinstance(exc, OperationalError)
        if embedded_server_stopped(postgres=database):  # the usual case: the embedded stack is not started
            sys.exit(f"memoryapp: {NOT_RUNNING}")
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        name = "DATABASE_URL" if database else "REDIS_URL"
        sys.exit(f"memoryapp: cannot reach the server given by {name}: {first}")


if __name__ == "__main__":
    main()
