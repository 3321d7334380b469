"""Who gets an account: the install's first administers it; after it SIGNUP says (closed by default)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

pytestmark = pytest.mark.django_db

NEW = {"username": "carol", "password1": "a-long-pass-phrase-9", "password2": "a-long-pass-phrase-9"}


def _users():
    return get_user_model().objects


def test_it_makes_the_first_account_the_administrator(client):
    assert "the first account administers it" in client.get("/accounts/login/").content.decode()
    assert "first account on this server" in client.get("/accounts/signup/").content.decode()

    response = client.post("/accounts/signup/", NEW)

    assert response.status_code == 302
    carol = _users().get(username="carol")
    assert carol.is_superuser and carol.is_staff and carol.is_active
    assert client.get("/admin/").status_code == 200
    assert 'href="/admin/"' in client.get("/settings/").content.decode()  # the header leads there


def test_it_closes_sign_up_once_the_install_has_its_administrator_unless_the_operator_opens_it(alice, settings):
    visitor = Client()
    login = visitor.get("/accounts/login/").content.decode()
    assert "Ask the administrator of this server" in login and 'href="/accounts/signup/"' not in login

    page = visitor.get("/accounts/signup/")
    assert page.status_code == 200 and 'id="signup-closed"' in page.content.decode()
    assert 'name="password1"' not in page.content.decode()
    answer = visitor.post("/accounts/signup/", NEW)
    assert answer.status_code == 403 and not _users().filter(username="carol").exists()

    chinese = Client(HTTP_ACCEPT_LANGUAGE="zh-hans").get("/accounts/login/").content.decode()
    assert "请这台服务器的管理员为你创建一个账号" in chinese

    settings.SIGNUP = "open"
    assert 'href="/accounts/signup/"' in visitor.get("/accounts/login/").content.decode()
    assert visitor.post("/accounts/signup/", NEW).status_code == 302
    carol = _users().get(username="carol")
    assert carol.is_active and not carol.is_staff and not carol.is_superuser
    assert "carol" in visitor.get("/").content.decode()


def test_it_holds_a_new_account_until_an_administrator_approves_it(alice, settings):
    settings.SIGNUP = "approval"
    visitor = Client()
    assert "an administrator approves it" in visitor.get("/accounts/login/").content.decode()

    page = visitor.post("/accounts/signup/", NEW)
    assert page.status_code == 200 and 'id="signup-pending"' in page.content.decode()
    carol = _users().get(username="carol")
    assert not carol.is_active and not carol.is_staff
    assert visitor.get("/").status_code == 302  # not logged in

    refused = visitor.post("/accounts/login/", {"username": "carol", "password": NEW["password1"]})
    assert "waits for an administrator" in refused.content.decode()

    admin = Client()
    _users().filter(pk=alice.pk).update(is_staff=True, is_superuser=True)
    admin.force_login(alice)
    assert "1 new account waits for your approval" in admin.get("/settings/").content.decode()
    listed = admin.get("/admin/auth/user/?waiting=yes").content.decode()
    assert "carol" in listed and "alice" not in listed.split("result_list")[1]
    admin.post("/admin/auth/user/", {"action": "approve", "_selected_action": [carol.pk]})
    carol.refresh_from_db()
    assert carol.is_active

    answer = visitor.post("/accounts/login/", {"username": "carol", "password": NEW["password1"]})
    assert answer.status_code == 302 and "carol" in visitor.get("/").content.decode()
