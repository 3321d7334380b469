"""An OAuth client's steps against the live app, as a remote MCP client takes them (registration, the
consent page as a signed-in user, the token endpoint), over plain HTTP: each test sees what a client sees."""

from __future__ import annotations

import base64
import hashlib
import html
import re
import secrets
from dataclasses import dataclass
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
from django.conf import settings
from django.test import Client

CALLBACK = "http://127.0.0.1:8765/callback"


# The MCP handshake's first request, as a client sends it.
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "curl", "version": "1"}},
}


def pkce() -> tuple[str, str]:
    """A code verifier and its S256 challenge."""
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    return verifier, challenge


def register(url: str, **metadata) -> httpx.Response:
    body = {"client_name": "Test Assistant", "redirect_uris": [CALLBACK], "token_endpoint_auth_method": "none"}
    return httpx.post(f"{url}/register", json={**body, **metadata}, timeout=10)


def signed_in(url: str, user) -> httpx.Client:
    """An HTTP client holding `user`'s session, as their browser would."""
    browser = Client()
    browser.force_login(user)
    http = httpx.Client(base_url=url, timeout=10)
    http.cookies.set(settings.SESSION_COOKIE_NAME, browser.cookies[settings.SESSION_COOKIE_NAME].value)
    return http


def hidden_fields(page: str) -> dict[str, str]:
    fields = {}
    for tag in re.findall(r"<input [^>]*>", page):
        name = re.search(r'name="([^"]*)"', tag)
        value = re.search(r'value="([^"]*)"', tag)
        if name and 'type="hidden"' in tag:
            fields[html.unescape(name.group(1))] = html.unescape(value.group(1)) if value else ""
    return fields


@dataclass
class App:
    """A registered public client and the PKCE pair of its current authorization request."""

    url: str
    client_id: str
    verifier: str = ""
    redirect_uri: str = CALLBACK

    @classmethod
    def registered(cls, url: str, **metadata) -> App:
        answer = register(url, **metadata)
        assert answer.status_code == 201, answer.text
        return cls(url, answer.json()["client_id"], redirect_uri=answer.json()["redirect_uris"][0])

    @property
    def resource(self) -> str:
        return f"{self.url}/mcp"

    def authorize_params(self, **overrides) -> dict[str, str]:
        self.verifier, challenge = pkce()
        params = {
            "response_type": "code",
            "client_id": self.client_id,
            "redirect_uri": self.redirect_uri,
            "state": secrets.token_urlsafe(16),
            "code_challenge": challenge,
            "code_challenge_method": "S256",
            "scope": "memories:read memories:write",
            "resource": self.resource,
        }
        params.update(overrides)
        return {k: v for k, v in params.items() if v is not None}

    def consent(self, http: httpx.Client, *, allow: bool = True, write: bool = True, **overrides) -> httpx.Response:
        """Open the consent page as the signed-in user and answer it; the server's answer (a 302 to the
        client, or the page again with an error)."""
        page = http.get(f"/authorize?{urlencode(self.authorize_params(**overrides))}")
        if page.status_code != 200:
            return page
        form = hidden_fields(page.text)
        if allow:
            form["allow"] = "Authorize"
        if write:
            form["write"] = "on"
        return http.post("/authorize", data=form)

    def code(self, http: httpx.Client, **overrides) -> str:
        answer = self.consent(http, **overrides)
        assert answer.status_code == 302, answer.text
        query = parse_qs(urlsplit(answer.headers["location"]).query)
        return query["code"][0]

    def exchange(self, code: str, **overrides) -> httpx.Response:
        data = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": self.redirect_uri,
            "client_id": self.client_id,
            "code_verifier": self.verifier,
            "resource": self.resource,
            **overrides,
        }
        return httpx.post(f"{self.url}/token", data={k: v for k, v in data.items() if v is not None}, timeout=10)

    def tokens(self, http: httpx.Client, **overrides) -> dict:
        answer = self.exchange(self.code(http, **overrides), resource=overrides.get("resource", self.resource))
        assert answer.status_code == 200, answer.text
        return answer.json()

    def refresh(self, refresh_token: str) -> httpx.Response:
        data = {"grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": self.client_id}
        return httpx.post(f"{self.url}/token", data=data, timeout=10)
