"""Many users at once (the bounded load of bench/load.py, shortened): ten chat sessions over the
real websocket and API readers against the live Daphne; no error, every message answered.
The two-minute, fifty-session run and its latencies are in docs/benchmarks.md."""
from __future__ import annotations

import argparse
import asyncio

import pytest
from django.test import Client

from bench.load import Actor, drive, lost_messages
from conversations.models import Conversation
from memoryapp.auth import create_token
from memoryapp.engine.write import add_memory

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def _actor(django_user_model, i: int) -> Actor:
    user = django_user_model.objects.create_user(f"load-{i}")
    add_memory(user, f"Prefers green tea and lives in city {i}")
    client = Client()
    client.force_login(user)
    return Actor(user.pk, Conversation.objects.create(user=user).pk, client.cookies["sessionid"].value,
                 create_token(user, "load")[1])


def test_ten_chat_sessions_and_api_readers_at_once_lose_nothing(app_server, django_user_model):
    actors = [_actor(django_user_model, i) for i in range(10)]
    args = argparse.Namespace(duration=8, think=0.5, readers=3, seed=1)

    tally = asyncio.run(drive(app_server.url, actors, args))

    assert not tally.errors, tally.examples
    assert len(tally.latencies["chat turn (whole reply)"]) >= 10  # every session got at least one reply
    assert sum(len(v) for k, v in tally.latencies.items() if k.startswith(("GET", "POST"))) >= 10
    assert lost_messages(actors) == 0
