"""Guessing passwords is slowed down: failed logins are limited per address and username."""

from __future__ import annotations

import uuid

import pytest
from django.contrib.auth import get_user_model
from django.test import override_settings

from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


@pytest.fixture
def carol():
    # A fresh name per run: the counters live in the shared Redis across test sessions.
    return get_user_model().objects.create_user(f"carol-{uuid.uuid4().hex[:8]}", password=PASSWORD)


@override_settings(LOGIN_FAILURES_PER_15_MINUTES=3)
def test_it_refuses_even_the_right_password_after_too_many_failures(client, carol):
    for _ in range(3):
        wrong = client.post("/accounts/login/", {"username": carol.username, "password": "nope"})
        assert wrong.status_code == 200 and b"errorlist" in wrong.content
    blocked = client.post("/accounts/login/", {"username": carol.username, "password": PASSWORD})
    assert blocked.status_code == 429
    assert b"Too many failed attempts" in blocked.content
    assert "_auth_user_id" not in client.session


@override_settings(LOGIN_FAILURES_PER_15_MINUTES=3)
def test_it_does_not_count_successful_logins_or_other_names(client, carol, alice):
    for _ in range(5):
        assert client.post("/accounts/login/", {"username": carol.username, "password": PASSWORD}).status_code == 302
        client.logout()
    for _ in range(3):
        client.post("/accounts/login/", {"username": carol.username, "password": "nope"})
    assert client.post("/accounts/login/", {"username": "alice", "password": PASSWORD}).status_code == 302


@override_settings(LOGIN_FAILURES_PER_15_MINUTES=2)
def test_a_blocked_attempt_never_reaches_the_password_check(client, carol):
    from django.contrib.auth.signals import user_login_failed

    for _ in range(2):
        client.post("/accounts/login/", {"username": carol.username, "password": "nope"})
    checked = []
    user_login_failed.connect(lambda **kwargs: checked.append(kwargs), weak=False, dispatch_uid="blocked-check")
    try:
        assert client.post("/accounts/login/", {"username": carol.username, "password": "nope"}).status_code == 429
    finally:
        user_login_failed.disconnect(dispatch_uid="blocked-check")
    assert checked == []  # no authenticate() call: a blocked guess costs no password hash
