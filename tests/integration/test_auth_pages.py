from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

pytestmark = pytest.mark.django_db


def test_it_sends_a_visitor_to_the_login_page(client):
    response = client.get("/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_it_signs_up_and_logs_the_new_user_in(client, alice, settings):
    settings.SIGNUP = "open"  # after the first account, sign-up is closed unless the operator opens it
    response = client.post(
        "/accounts/signup/",
        {"username": "carol", "password1": "a-long-pass-phrase-9", "password2": "a-long-pass-phrase-9"},
    )
    assert response.status_code == 302
    assert get_user_model().objects.filter(username="carol").exists()
    assert "carol" in client.get("/").content.decode()


def test_it_shows_form_errors_for_a_weak_password_and_creates_nobody(client, alice, settings):
    settings.SIGNUP = "open"
    response = client.post("/accounts/signup/", {"username": "dave", "password1": "123", "password2": "123"})
    assert response.status_code == 400
    assert b"errorlist" in response.content
    assert not get_user_model().objects.filter(username="dave").exists()


def test_it_labels_the_offline_model(alice_client):
    assert "Offline model" in alice_client.get("/").content.decode()


def test_it_serves_the_page_in_chinese_for_a_chinese_browser(alice_client):
    page = alice_client.get("/", HTTP_ACCEPT_LANGUAGE="zh-Hans").content.decode()
    assert 'lang="zh-hans"' in page
