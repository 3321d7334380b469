"""The authorization code flow as a client and a signed-in user go through it: consent, PKCE (S256 only),
exact redirect URIs, single-use codes, refresh tokens that rotate and whose reuse revokes the family."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from oauth2_provider.models import get_access_token_model, get_refresh_token_model

from memoryapp.principals import hash_token

from .flow import App, hidden_fields, signed_in

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def query(answer: httpx.Response) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(answer.headers["location"]).query).items()}


def test_a_signed_out_user_logs_in_first_and_comes_back(app_server):
    app = App.registered(app_server.url)
    answer = httpx.get(f"{app_server.url}/authorize", params=app.authorize_params(), timeout=10)

    assert answer.status_code == 302
    location = answer.headers["location"]
    assert location.startswith("/accounts/login/?next=/authorize%3F")


def test_allow_sends_a_code_with_the_state_and_issuer(app_server, alice):
    app = App.registered(app_server.url)
    params = app.authorize_params()
    http = signed_in(app_server.url, alice)
    page = http.get("/authorize", params=params)
    assert page.status_code == 200 and "Test Assistant" in page.text

    form = hidden_fields(page.text)
    assert form["resource"] == app.resource and form["code_challenge"] == params["code_challenge"]
    answer = http.post("/authorize", data={**form, "allow": "Authorize", "write": "on"})

    assert answer.status_code == 302 and answer.headers["location"].startswith(app.redirect_uri + "?")
    sent = query(answer)
    assert sent["state"] == params["state"] and sent["iss"] == app_server.url and sent["code"]
    tokens = app.exchange(sent["code"]).json()
    assert tokens["token_type"] == "Bearer" and tokens["expires_in"] == 3600
    assert set(tokens["scope"].split()) == {"memories:read", "memories:write"}
    stored = get_access_token_model().objects.get(token_checksum=hash_token(tokens["access_token"]))
    assert stored.user == alice and stored.resource == [app.resource]
    assert stored.token == ""  # only its hash is kept


def test_deny_sends_access_denied_and_no_code(app_server, alice):
    app = App.registered(app_server.url)
    answer = app.consent(signed_in(app_server.url, alice), allow=False)

    assert answer.status_code == 302
    assert query(answer)["error"] == "access_denied" and "code" not in query(answer)


def test_the_consent_needs_the_csrf_token(app_server, alice):
    app = App.registered(app_server.url)
    http = signed_in(app_server.url, alice)
    page = http.get("/authorize", params=app.authorize_params())
    form = {k: v for k, v in hidden_fields(page.text).items() if k != "csrfmiddlewaretoken"}
    answer = http.post("/authorize", data={**form, "allow": "Authorize"})

    assert answer.status_code == 403
    assert not get_access_token_model().objects.filter(user=alice).exists()


@pytest.mark.parametrize(
    ("overrides", "error"),
    [
        ({"code_challenge": None, "code_challenge_method": None}, "invalid_request"),
        ({"code_challenge_method": "plain"}, "invalid_request"),
    ],
)
def test_a_request_without_s256_pkce_gets_no_code(app_server, alice, overrides, error):
    app = App.registered(app_server.url)
    answer = app.consent(signed_in(app_server.url, alice), **overrides)

    assert answer.status_code == 302  # back to the registered redirect URI, with the error
    assert query(answer)["error"] == error and "code" not in query(answer)


@pytest.mark.parametrize(
    "redirect_uri",
    ["https://evil.example/callback", "http://127.0.0.1:8765/callback/more", "http://127.0.0.1:8765/callback?x=1"],
)
def test_a_redirect_uri_not_registered_is_never_redirected_to(app_server, alice, redirect_uri):
    app = App.registered(app_server.url)
    http = signed_in(app_server.url, alice)
    answer = http.get("/authorize", params=app.authorize_params(redirect_uri=redirect_uri))

    assert answer.status_code == 400 and "location" not in answer.headers
    assert "This sign-in request cannot go on" in answer.text
    assert 'href="https://evil.example' not in answer.text


def test_an_unknown_client_is_a_page_not_a_redirect(app_server, alice):
    app = App(app_server.url, "no-such-client")
    answer = signed_in(app_server.url, alice).get("/authorize", params=app.authorize_params())
    assert answer.status_code == 400 and "location" not in answer.headers


@pytest.mark.parametrize("field", ["redirect_uri", "resource"])
def test_a_url_that_does_not_parse_is_a_400_page(app_server, alice, field):
    app = App.registered(app_server.url)
    answer = signed_in(app_server.url, alice).get("/authorize", params=app.authorize_params(**{field: "https://[::1"}))
    assert answer.status_code == 400 and "is not a URL" in answer.text


def test_a_consent_for_a_client_that_is_gone_is_a_400_page(app_server, alice):
    app = App.registered(app_server.url)
    http = signed_in(app_server.url, alice)
    form = hidden_fields(http.get("/authorize", params=app.authorize_params()).text)
    answer = http.post("/authorize", data={**form, "client_id": "gone", "allow": "Authorize"})
    assert answer.status_code == 400 and "location" not in answer.headers
    assert "This sign-in request cannot go on" in answer.text


def test_a_loopback_redirect_may_use_any_port(app_server, alice):
    app = App.registered(app_server.url)
    app.redirect_uri = "http://127.0.0.1:49152/callback"  # a native client's ephemeral port (RFC 8252)
    tokens = app.tokens(signed_in(app_server.url, alice))
    assert tokens["access_token"]


def test_a_code_works_once(app_server, alice):
    app = App.registered(app_server.url)
    code = app.code(signed_in(app_server.url, alice))

    assert app.exchange(code).status_code == 200
    again = app.exchange(code)
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant"


def test_a_code_needs_its_verifier_and_its_client(app_server, alice):
    app = App.registered(app_server.url)
    other = App.registered(app_server.url)
    http = signed_in(app_server.url, alice)

    assert app.exchange(app.code(http), code_verifier="x" * 50).json()["error"] == "invalid_grant"
    code = app.code(http)
    assert app.exchange(code, client_id=other.client_id).status_code in (400, 401)
    assert app.exchange(code).status_code == 200


def test_a_refresh_rotates_and_a_reused_refresh_token_revokes_the_family(app_server, alice):
    app = App.registered(app_server.url)
    first = app.tokens(signed_in(app_server.url, alice))

    second = app.refresh(first["refresh_token"])
    assert second.status_code == 200, second.text
    second = second.json()
    assert second["refresh_token"] != first["refresh_token"] and second["access_token"] != first["access_token"]
    stored = get_access_token_model().objects.get(token_checksum=hash_token(second["access_token"]))
    assert stored.resource == [app.resource]  # still bound to /mcp

    replay = app.refresh(first["refresh_token"])  # someone else kept the old one
    assert replay.status_code == 400 and replay.json()["error"] == "invalid_grant"
    assert app.refresh(second["refresh_token"]).status_code == 400  # the family is revoked
    assert not get_refresh_token_model().objects.filter(user=alice, revoked__isnull=True).exists()


def test_revoking_a_token_ends_it(app_server, alice):
    app = App.registered(app_server.url)
    tokens = app.tokens(signed_in(app_server.url, alice))
    answer = httpx.post(
        f"{app_server.url}/revoke", data={"token": tokens["access_token"], "client_id": app.client_id}, timeout=10
    )
    assert answer.status_code == 200
    assert not get_access_token_model().objects.filter(token_checksum=hash_token(tokens["access_token"])).exists()


def test_the_consent_page_lets_the_user_leave_out_writing(app_server, alice):
    app = App.registered(app_server.url)
    tokens = app.tokens(signed_in(app_server.url, alice), write=False)
    assert tokens["scope"] == "memories:read"


def test_unticking_writing_when_only_writing_was_asked_for_is_a_deny(app_server, alice):
    app = App.registered(app_server.url)
    answer = app.consent(signed_in(app_server.url, alice), write=False, scope="memories:write")
    assert answer.status_code == 302
    assert query(answer)["error"] == "access_denied" and "code" not in query(answer)
