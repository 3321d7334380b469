"""Who a Bearer secret speaks for, and what it may do: a personal API token (`mem_…`, made on the Settings
page) or an OAuth access token that a remote MCP client got through the consent page (memoryapp/oauth).

Both are stored as sha256 of the secret, never the secret. One lookup for every edge that takes Bearer
tokens (the REST API, /mcp), so they cannot drift on what counts as a live token.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.db import transaction
from django.utils import timezone
from oauth2_provider.models import get_access_token_model

from memoryapp.lib import clients
from memoryapp.models import ApiToken

if TYPE_CHECKING:
    from django.contrib.auth.models import User

TOKEN_PREFIX = "mem_"
LAST_USED_RESOLUTION = timedelta(minutes=1)  # at most one write per token per minute for `last_used_at`
MAX_SECRET_LENGTH = 200

READ = "memories:read"
WRITE = "memories:write"
ALL_SCOPES = frozenset({READ, WRITE})


@dataclass(frozen=True)
class Principal:
    """The user a request acts for, the scopes its token was granted (a personal token has both), and the
    program it came through (memoryapp/lib/clients.py), which the audit trail records."""

    user: User
    scopes: frozenset[str]
    client: str

    @property
    def can_write(self) -> bool:
        return WRITE in self.scopes


def hash_token(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _personal_token(secret: str) -> ApiToken | None:
    """The live personal token (`mem_…`) of an active user, or None; notes when the token was last used."""
    if not secret.startswith(TOKEN_PREFIX) or len(secret) > MAX_SECRET_LENGTH:
        return None
    found = (
        ApiToken.objects.select_related("user")
        .filter(token_hash=hash_token(secret), revoked_at__isnull=True, user__is_active=True)
        .first()
    )
    if found is None:
        return None
    now = timezone.now()
    if found.last_used_at is None or now - found.last_used_at > LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=found.pk).update(last_used_at=now)
    return found


def principal_for_token(secret: str, resource: str) -> Principal | None:
    """Who `secret` acts for at `resource` (the absolute URL of the resource called: https://memory.example.com/mcp
    or …/api/), or None.

    A personal token counts everywhere with both scopes. An OAuth access token counts while it is unexpired,
    its user is active, it was granted at least `memories:read`, and it is bound to `resource` (RFC 8707; a
    token bound to nothing is allowed, as the library has it). A client's registration token (no user, scope
    `oauth2_provider:registration`) never counts."""
    if not secret or len(secret) > MAX_SECRET_LENGTH:
        return None
    if secret.startswith(TOKEN_PREFIX):
        personal = _personal_token(secret)
        if personal is None:
            return None
        return Principal(personal.user, ALL_SCOPES, clients.token_client(personal.pk))
    token = (
        get_access_token_model()
        .objects.select_related("user")
        .filter(token_checksum=hash_token(secret), user__isnull=False, user__is_active=True)
        .first()
    )
    if token is None or token.is_expired():
        return None
    scopes = frozenset(token.scope.split()) & ALL_SCOPES
    if READ not in scopes or not token.allows_audience(resource):
        return None
    return Principal(token.user, scopes, clients.app_client(token.application_id) if token.application_id else "")


@dataclass(frozen=True)
class ConnectedApp:
    """An OAuth client the user let in (memoryapp/oauth), as Settings lists it: what it may do, since when,
    when it last asked for a token."""

    id: int
    name: str
    scopes: frozenset[str]
    connected_at: datetime
    last_used_at: datetime

    @property
    def can_write(self) -> bool:
        return WRITE in self.scopes


def connected_apps(user) -> list[ConnectedApp]:
    """The OAuth clients holding a live grant of the user's (an unexpired access token or a refresh token
    not revoked), most recently used first."""
    from oauth2_provider.models import get_refresh_token_model

    now = timezone.now()
    live: dict[int, dict] = {}
    for token in get_access_token_model().objects.filter(user=user, expires__gt=now).select_related("application"):
        _note(live, token.application, token.scope, token.created, token.updated)
    for refresh in (
        get_refresh_token_model()
        .objects.filter(user=user, revoked__isnull=True)
        .select_related("application", "access_token")
    ):
        scope = refresh.access_token.scope if refresh.access_token else ""
        _note(live, refresh.application, scope, refresh.created, refresh.updated)
    apps = [ConnectedApp(pk, **fields) for pk, fields in live.items()]
    return sorted(apps, key=lambda app: app.last_used_at, reverse=True)


def _note(live: dict[int, dict], application, scope: str, created: datetime, used: datetime) -> None:
    if application is None:
        return
    seen = live.setdefault(
        application.pk,
        {
            "name": application.name or application.client_id,
            "scopes": frozenset(),
            "connected_at": created,
            "last_used_at": used,
        },
    )
    seen["scopes"] |= frozenset(scope.split()) & ALL_SCOPES
    seen["connected_at"] = min(seen["connected_at"], created)
    seen["last_used_at"] = max(seen["last_used_at"], used)


def disconnect_app(user, application_id: int) -> bool:
    """Take back everything the user granted the client: its tokens and codes go, so its next request is a
    401 and it must ask again. False when it held nothing of the user's."""
    from oauth2_provider.models import get_grant_model, get_refresh_token_model

    with transaction.atomic():
        removed = 0
        for model in (get_refresh_token_model(), get_access_token_model(), get_grant_model()):
            removed += model.objects.filter(user=user, application_id=application_id).delete()[0]
    return bool(removed)


def client_names(user, keys: set[str]) -> dict[str, str]:
    """What the user calls each program of an audit record (lib/clients.py keys): an OAuth app by the name it
    registered, a personal token by the name it was given. A key that names nothing of the user's (a token
    since removed with its account, a malformed key) is left out."""
    from oauth2_provider.models import get_application_model

    wanted: dict[str, set[int]] = {clients.APP_PREFIX: set(), clients.TOKEN_PREFIX: set()}
    for key in keys:
        for prefix, ids in wanted.items():
            if key.startswith(prefix) and key.removeprefix(prefix).isdigit():
                ids.add(int(key.removeprefix(prefix)))
    names: dict[str, str] = {}
    for app in get_application_model().objects.filter(pk__in=wanted[clients.APP_PREFIX]).only("name", "client_id"):
        names[clients.app_client(app.pk)] = app.name or app.client_id
    for token in ApiToken.objects.filter(user=user, pk__in=wanted[clients.TOKEN_PREFIX]).only("name"):
        names[clients.token_client(token.pk)] = token.name
    return names
