"""Fixed-window counters in the shared cache (Redis), for rate limits across processes: the login
limit (memoryapp/web/login.py), the authorization server's (memoryapp/oauth/limits.py). The REST API
uses django-ninja's throttling (memoryapp/api/throttling.py)."""

from __future__ import annotations

import time

from django.core.cache import cache


def _key(bucket: str, window_seconds: int) -> str:
    return f"ratelimit:{bucket}:{int(time.time() // window_seconds)}"


def count(bucket: str, window_seconds: int) -> int:
    return int(cache.get(_key(bucket, window_seconds), 0))


def hit(bucket: str, window_seconds: int) -> int:
    """Count one event in the current window; returns the count so far."""
    key = _key(bucket, window_seconds)
    cache.add(key, 0, timeout=window_seconds + 30)
    return cache.incr(key)


def seconds_left(window_seconds: int) -> int:
    """Until the current window ends and its count starts again (a Retry-After), at least 1."""
    return max(1, window_seconds - int(time.time() % window_seconds))
