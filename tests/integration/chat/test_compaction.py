"""A long chat's beginning still informs its replies: the turns that no longer fit are folded into a
rolling summary (one model call), and the prompt carries it in their place."""

from __future__ import annotations

import pytest

from conversations.models import Conversation, Message
from memoryapp.engine.chat import chat
from memoryapp.engine.llm.chat_summary import COMPACT_MARKER
from tasks.extraction import extract_messages

ENQUEUE_EXTRACTION = extract_messages.delay_on_commit  # as the chat's edges queue extraction

pytestmark = pytest.mark.django_db

FIRST = "My daughter's name is Mei and she is allergic to sesame."


def sixty_turn_chat(user, first: str = FIRST) -> Conversation:
    conversation = Conversation.objects.create(user=user, title="long")
    filler = "Let us keep planning the week's meals, one more day of breakfast, lunch and dinner ideas. " * 4
    texts = [first] + [f"Day {i}: {filler}" for i in range(1, 60)]
    Message.objects.bulk_create(
        [
            message
            for i, text in enumerate(texts)
            for message in (
                Message(conversation=conversation, role="user", content=text),
                Message(conversation=conversation, role="assistant", content=f"Noted for turn {i}. {filler}"),
            )
        ]
    )
    return conversation


def test_the_first_turns_of_a_60_turn_chat_reach_the_model_through_the_summary(alice, llm_server, scripted_llm):
    conversation = sixty_turn_chat(alice)
    llm_server.script(COMPACT_MARKER, "Mei, the user's daughter, is allergic to sesame; they are planning meals.")
    llm_server.script(None, "Pack rice crackers: no sesame, for Mei.")

    turn, reply = chat.chat_turn(
        conversation,
        "What snack can I pack for my daughter tomorrow?",
        enqueue_extraction=ENQUEUE_EXTRACTION,
        llm=scripted_llm,
    )

    compacting = llm_server.chat_requests(COMPACT_MARKER)
    assert len(compacting) == 1 and FIRST in compacting[0]["messages"][1]["content"]  # the first turn was read
    answered = [r for r in llm_server.chat_requests() if COMPACT_MARKER not in r["messages"][0]["content"]][-1]
    prompt = "\n".join(m["content"] for m in answered["messages"])
    assert "<earlier_in_this_chat>" in prompt and "allergic to sesame" in prompt
    assert FIRST not in prompt  # the turn itself no longer fits: its summary stands in for it
    assert answered["messages"][-1]["content"] == "What snack can I pack for my daughter tomorrow?"
    assert reply.content == "Pack rice crackers: no sesame, for Mei."
    conversation.refresh_from_db()
    assert "sesame" in conversation.summary and conversation.summary_until is not None

    llm_server.script(None, "Sure.")
    chat.chat_turn(conversation, "Thanks, and for Thursday?", enqueue_extraction=ENQUEUE_EXTRACTION, llm=scripted_llm)
    assert len(llm_server.chat_requests(COMPACT_MARKER)) == 1  # the kept turns fit: no new call next turn


def test_the_offline_model_keeps_the_users_own_words(alice):
    conversation = sixty_turn_chat(alice, first="我女儿叫小美，她对芝麻过敏。")
    turn = chat.start_turn(conversation, "明天给女儿带什么零食好？", enqueue_extraction=ENQUEUE_EXTRACTION)
    system = turn.prompt[0]["content"]
    assert "<earlier_in_this_chat>" in system and "我女儿叫小美，她对芝麻过敏" in system


def test_a_model_that_fails_to_summarise_does_not_fail_the_turn(alice, llm_server, scripted_llm):
    from tests.support.llm_server import Fail

    conversation = sixty_turn_chat(alice)
    llm_server.script(COMPACT_MARKER, Fail(400))
    llm_server.script(None, "Here is an idea.")
    turn, reply = chat.chat_turn(
        conversation,
        "What snack can I pack for my daughter tomorrow?",
        enqueue_extraction=ENQUEUE_EXTRACTION,
        llm=scripted_llm,
    )
    assert reply.content == "Here is an idea."
    conversation.refresh_from_db()
    assert conversation.summary == ""


def test_the_chat_page_shows_the_summary(alice, alice_client):
    conversation = sixty_turn_chat(alice)
    chat.start_turn(
        conversation, "What snack can I pack for my daughter tomorrow?", enqueue_extraction=ENQUEUE_EXTRACTION
    )
    page = alice_client.get(f"/c/{conversation.pk}/").content.decode()
    assert "Earlier in this chat:" in page and "allergic to sesame" in page
