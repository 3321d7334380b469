"""Per-address limits on the authorization server's open doors: client registration (/register, an hour's
window), the token endpoint (/token) and the consent's answers (POST /authorize), a minute's. Counted in the
shared cache (memoryapp/web/ratelimit.py), so every process counts together.

Past a limit, /register and /token answer 429 with an OAuth error body and Retry-After (the seconds left in
the window); the consent page answers its error page with the same status.
"""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse

from memoryapp.web import ratelimit

MINUTE = 60
HOUR = 3600


def take(request: HttpRequest, door: str, allowed: int, window_seconds: int) -> bool:
    """Count this request at `door` from its address; False (and not counted) once `allowed` were made in
    this window."""
    bucket = f"{door}:{request.META.get('REMOTE_ADDR', '')}"
    if ratelimit.count(bucket, window_seconds) >= allowed:
        return False
    ratelimit.hit(bucket, window_seconds)
    return True


def too_many(error: str, description: str, window_seconds: int) -> JsonResponse:
    """A 429 as the OAuth endpoints word their errors (RFC 6749 §5.2), saying when to try again."""
    response = JsonResponse({"error": error, "error_description": description}, status=429)
    response["Retry-After"] = retry_after(window_seconds)
    return response


def retry_after(window_seconds: int) -> str:
    """The Retry-After header's value: the seconds left in this window."""
    return str(ratelimit.seconds_left(window_seconds))
