"""Every page names its icon, and browsers that ask for /favicon.ico by habit get it instead of a 404."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_it_serves_an_icon_at_favicon_ico(client):
    response = client.get("/favicon.ico", follow=True)
    assert response.status_code == 200
    assert response["Content-Type"] == "image/svg+xml"
    assert b"<svg" in b"".join(response.streaming_content)


def test_it_names_the_icon_on_every_page(client):
    page = client.get("/accounts/login/").content.decode()
    assert '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">' in page
