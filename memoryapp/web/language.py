"""The user's language, one value whichever control sets it: the header's picker or the settings form.

A signed-in user's choice is saved on their settings (`MemorySettings.language`, "" = the browser's
default) and wins over the language cookie on every page, on every device. The cookie that Django's
LocaleMiddleware reads carries the choice of a visitor who is not signed in, and a copy of the saved
one, so the login page after a logout speaks the same language. Both controls write both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.views.i18n import set_language as django_set_language

from memoryapp.models import MemorySettings

if TYPE_CHECKING:
    from collections.abc import Callable


def supported(code: str | None) -> str:
    """`code` when it is one of settings.LANGUAGES, else "" (the browser's default)."""
    return code if code in dict(settings.LANGUAGES) else ""


def saved(user) -> str:
    """The language saved on a signed-in user's settings; "" when they chose none (or nobody is signed in)."""
    if not user.is_authenticated:
        return ""
    return supported(MemorySettings.objects.filter(user=user).values_list("language", flat=True).first())


def chosen(request: HttpRequest) -> str:
    """What the settings form shows: the saved choice, else the one the cookie carries, else "" (the
    browser's default). The page is in this language whenever it is not ""."""
    return saved(request.user) or supported(request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME))


def remember(response: HttpResponse, code: str) -> HttpResponse:
    """Put the choice in the cookie LocaleMiddleware reads; "" removes it (the browser decides)."""
    if code:
        response.set_cookie(
            settings.LANGUAGE_COOKIE_NAME,
            code,
            max_age=settings.LANGUAGE_COOKIE_AGE,
            samesite="Lax",
            secure=settings.SESSION_COOKIE_SECURE,
        )
    else:
        response.delete_cookie(settings.LANGUAGE_COOKIE_NAME, samesite="Lax")
    return response


def set_language(request: HttpRequest) -> HttpResponse:
    """The header's picker: Django's set_language (the cookie, the redirect to `next`; a GET only
    redirects), and for a signed-in user the same value saved on their settings, where the form reads it."""
    response = django_set_language(request)
    code = supported(request.POST.get("language"))
    if request.method == "POST" and code and request.user.is_authenticated:
        MemorySettings.objects.update_or_create(user=request.user, defaults={"language": code})
    return response


class UserLanguageMiddleware:
    """After LocaleMiddleware and AuthenticationMiddleware: a signed-in user's saved language wins over
    the cookie and the browser's, and the cookie is brought in line with it."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        code = saved(request.user)
        if code:
            translation.activate(code)
            request.LANGUAGE_CODE = code
        response = self.get_response(request)
        if (
            code
            and request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME) != code
            and settings.LANGUAGE_COOKIE_NAME not in response.cookies
        ):
            remember(response, code)
        return response
