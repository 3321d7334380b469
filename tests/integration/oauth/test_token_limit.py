"""The token endpoint and the consent's answers are limited per address (OAUTH_TOKEN_REQUESTS_PER_MINUTE):
past the limit a 429 that says to slow down and when to come back, and nothing is spent or made.

In-process (Django's test client), so that the limit can be lowered and the minute's clock held still: a
window that rolled over mid-test would let the last request through."""

from __future__ import annotations

from types import SimpleNamespace
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from django.core.cache import cache
from django.test import Client, override_settings
from oauth2_provider.models import get_application_model, get_grant_model

from memoryapp.oauth import limits
from memoryapp.web import ratelimit

from .flow import CALLBACK, App, hidden_fields

pytestmark = pytest.mark.django_db

ADDRESS, OTHER = "203.0.113.7", "203.0.113.8"
NOW = 60.0 * 66_666_667 + 30  # 30 s into a minute (in 2096: a window no real run shares)


@pytest.fixture(autouse=True)
def clock(monkeypatch):
    """The limits' clock, held still; `clock.now` moves it."""
    held = SimpleNamespace(now=NOW)
    monkeypatch.setattr(ratelimit, "time", SimpleNamespace(time=lambda: held.now))
    for door in ("oauth-token", "oauth-consent"):
        for remote in (ADDRESS, OTHER):
            cache.delete(ratelimit._key(f"{door}:{remote}", limits.MINUTE))
    return held


@pytest.fixture
def app() -> App:
    registered = get_application_model().objects.create(
        name="Test Assistant",
        client_type="public",
        authorization_grant_type="authorization-code",
        redirect_uris=CALLBACK,
    )
    return App("http://testserver", registered.client_id)


@pytest.fixture
def browser(alice) -> Client:
    client = Client()
    client.force_login(alice)
    return client


def consent(browser: Client, app: App, remote: str):
    page = browser.get("/authorize", app.authorize_params(), REMOTE_ADDR=remote)
    assert page.status_code == 200, page.content
    form = hidden_fields(page.content.decode())
    return browser.post("/authorize", {**form, "allow": "Authorize", "write": "on"}, REMOTE_ADDR=remote)


def exchange(app: App, code: str, remote: str):
    body = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": CALLBACK,
        "client_id": app.client_id,
        "code_verifier": app.verifier,
        "resource": app.resource,
    }
    return Client().post(
        "/token", urlencode(body), content_type="application/x-www-form-urlencoded", REMOTE_ADDR=remote
    )


@override_settings(OAUTH_TOKEN_REQUESTS_PER_MINUTE=3)
def test_the_token_endpoint_is_limited_per_address_and_a_refused_request_spends_nothing(browser, app, clock):
    answer = consent(browser, app, OTHER)
    code = parse_qs(urlsplit(answer["Location"]).query)["code"][0]

    wrong = [exchange(app, "not-the-code", ADDRESS) for _ in range(3)]
    held_back = exchange(app, code, ADDRESS)

    assert [(a.status_code, a.json()["error"]) for a in wrong] == [(400, "invalid_grant")] * 3
    assert held_back.status_code == 429
    assert held_back.json()["error"] == "slow_down"
    assert "at most 3 a minute" in held_back.json()["error_description"]
    assert held_back["Retry-After"] == "30"  # the rest of this minute
    assert exchange(app, "not-the-code", OTHER).status_code == 400  # another address is not held back

    clock.now += limits.MINUTE
    tokens = exchange(app, code, ADDRESS)

    assert tokens.status_code == 200, tokens.content  # the code the 429 refused was not spent
    assert tokens.json()["access_token"]


@override_settings(OAUTH_TOKEN_REQUESTS_PER_MINUTE=2)
def test_the_consents_answers_are_limited_per_address_and_a_refused_one_makes_no_code(browser, app):
    answers = [consent(browser, app, ADDRESS) for _ in range(3)]

    assert [a.status_code for a in answers] == [302, 302, 429]
    refused = answers[-1].content.decode()
    assert "slow_down" in refused and "too many answers from this address" in refused
    assert answers[-1]["Retry-After"] == "30"
    assert get_grant_model().objects.count() == 2  # a code for each answer let through, none for the third
    assert consent(browser, app, OTHER).status_code == 302
