"""Expired OAuth tokens do not pile up: the beat's daily job deletes them (docs/pipeline.md)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_refresh_token_model

from tasks.maintenance import clear_oauth_tokens

from .flow import App, signed_in

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_the_daily_job_deletes_expired_tokens_and_keeps_live_ones(app_server, alice):
    app = App.registered(app_server.url)
    http = signed_in(app_server.url, alice)
    old, live = app.tokens(http), app.tokens(http)
    AccessToken, RefreshToken = get_access_token_model(), get_refresh_token_model()
    past = timezone.now() - timedelta(seconds=settings.OAUTH2_PROVIDER["REFRESH_TOKEN_EXPIRE_SECONDS"] + 60)
    stale = AccessToken.objects.filter(user=alice).order_by("pk").first()
    AccessToken.objects.filter(pk=stale.pk).update(expires=past)
    RefreshToken.objects.filter(access_token=stale).update(created=past)

    assert settings.CELERY_BEAT_SCHEDULE["clear-oauth-tokens"]["task"] == clear_oauth_tokens.name
    clear_oauth_tokens()

    assert not AccessToken.objects.filter(pk=stale.pk).exists()
    assert AccessToken.objects.filter(user=alice).count() == 1
    assert app.refresh(live["refresh_token"]).status_code == 200
    assert app.refresh(old["refresh_token"]).status_code == 400
