from __future__ import annotations

import pytest
from django.test import Client

from memoryapp.api.auth import create_token


@pytest.fixture
def alice_token(alice) -> str:
    return create_token(alice, "tests")[1]


@pytest.fixture
def api(client: Client, alice_token: str):
    """A client that calls the API as alice with her Bearer token (no session)."""

    class Api:
        def __getattr__(self, method: str):
            def call(path: str, json=None, **extra):
                kwargs = {"HTTP_AUTHORIZATION": f"Bearer {alice_token}", **extra}
                if json is not None:
                    kwargs.update(data=json, content_type="application/json")
                return getattr(client, method)(f"/api{path}", **kwargs)

            return call

    return Api()
