"""Typed readers for settings that come from the environment.

Modelled on healthchecks' `envbool`/`envint`: misconfiguration fails loudly at startup
instead of being guessed at.
"""

from __future__ import annotations

import os

from django.core.exceptions import ImproperlyConfigured


def envstr(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(name)
    return default if value in (None, "") else value


def envbool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value in (None, ""):
        return default
    if value.lower() == "true":
        return True
    if value.lower() == "false":
        return False
    raise ImproperlyConfigured(f"{name} must be 'True' or 'False', not {value!r}")


def envint(name: str, default: int) -> int:
    value = os.environ.get(name)
    if value in (None, ""):
        return default
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, not {value!r}") from None


def envfloat(name: str, default: float) -> float:
    value = os.environ.get(name)
    if value in (None, ""):
        return default
    try:
        return float(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a number, not {value!r}") from None


def envchoice(name: str, choices: list[str], default: str) -> str:
    """One of `choices`, exactly as spelt there; anything else is an error naming them all."""
    value = os.environ.get(name)
    if value in (None, ""):
        return default
    if value not in choices:
        raise ImproperlyConfigured(f"{name} must be one of {', '.join(choices)}, not {value!r}")
    return value


def envsecret(name: str) -> str | None:
    """A secret from NAME, or from the file NAME_FILE points at (Docker secrets)."""
    value = envstr(name)
    if value is not None:
        return value
    path = envstr(f"{name}_FILE")
    if path is None:
        return None
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().strip()
    except OSError as exc:
        raise ImproperlyConfigured(f"{name}_FILE points at {path!r}, which cannot be read: {exc}") from None
