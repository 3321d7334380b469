"""A chat's working memory (seed 000): the task in progress stays in every turn's prompt, so a trip planned
over twenty turns still knows its dates after compaction summarised the turns that settled them. With a
model the reply keeps it (its last line, never shown); the prompt carries it in a block of its own."""

from __future__ import annotations

import pytest

from conversations.models import Conversation
from memoryapp.engine.chat import chat
from memoryapp.engine.chat_state import store
from memoryapp.engine.llm.chat_summary import COMPACT_MARKER

pytestmark = pytest.mark.django_db

FILLER = {
    "en": "Let us also think about what to pack, which museums open on holidays, and where to eat near the station. ",
    "zh": "我们再想想要带什么行李、节假日哪些博物馆开门、车站附近吃什么比较方便，还有交通卡怎么买。",
}
TRIP = {
    "en": {
        "start": "I want to plan a trip to Kyoto.",
        "dates": "Let's go from December 30 to January 3.",
        "ask": "What dates did we settle on?",
        "summary": "The user is planning a trip and asked about packing, museums and food.",
    },
    "zh": {
        "start": "我想计划一次去京都的旅行。",
        "dates": "我们就定12月30号到1月3号吧。",
        "ask": "我们最后定的是哪几天？",
        "summary": "用户在计划一次旅行，问了行李、博物馆和吃饭的事。",
    },
}
DATES = "2025-12-30 – 2026-01-03"


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_compacted_trip_chat_still_knows_its_dates_at_turn_20(alice, llm_server, scripted_llm, language):
    trip, filler = TRIP[language], FILLER[language] * (9 if language == "en" else 7)  # compacted by turn 12
    conversation = Conversation.objects.create(user=alice, title="trip")
    llm_server.script(COMPACT_MARKER, *[trip["summary"]] * 5)  # no dates in any summary
    llm_server.script(
        None,
        'Kyoto it is.\n<keep>{"task": "plan a trip", "destination": "Kyoto"}</keep>',
        f'Noted: those dates.\n<keep>{{"dates": "{DATES}"}}</keep>',
        *[f"Good idea. {filler}"] * 17,
        "December 30 to January 3.",
    )
    messages = [trip["start"], trip["dates"], *[f"{n}. {filler}" for n in range(3, 20)], trip["ask"]]
    compacted_by = None
    for number, text in enumerate(messages, start=1):
        _turn, reply = chat.chat_turn(conversation, text, llm=scripted_llm)
        if compacted_by is None and llm_server.chat_requests(COMPACT_MARKER):
            compacted_by = number
        assert "<keep>" not in reply.content  # the line that keeps it is never shown nor kept in the chat

    assert compacted_by is not None and compacted_by <= 12
    answered = [r for r in llm_server.chat_requests() if COMPACT_MARKER not in r["messages"][0]["content"]][-1]
    system, turns = answered["messages"][0]["content"], answered["messages"][1:]
    assert not any(trip["dates"] in m["content"] for m in turns)  # the turn that settled them was compacted
    assert "<keeping_in_mind>" in system and f"dates: {DATES}" in system and "destination: Kyoto" in system
    assert answered["messages"][-1]["content"] == trip["ask"]
    kept = {
        entry.key: (entry.value, entry.by) for entry in store.entries(alice.pk, store.chat_session(conversation.pk))
    }
    assert kept["dates"] == (DATES, "chat")


def test_a_reply_that_changes_nothing_leaves_it_and_the_prompt_asks_the_model_to_keep_it(
    alice, llm_server, scripted_llm
):
    conversation = Conversation.objects.create(user=alice, title="plain")
    llm_server.script(None, "Paris is the capital of France.")
    chat.chat_turn(conversation, "What's the capital of France?", llm=scripted_llm)
    system = llm_server.chat_requests()[-1]["messages"][0]["content"]
    assert "<keep>" in system and "<keeping_in_mind>" not in system  # asked to keep it; nothing kept yet
    assert store.entries(alice.pk, store.chat_session(conversation.pk)) == []


def test_with_redis_down_the_turn_goes_on_without_it(alice, llm_server, scripted_llm, monkeypatch):
    import redis

    conversation = Conversation.objects.create(user=alice, title="down")
    store.put(alice.pk, store.chat_session(conversation.pk), {"destination": "Oslo"}, by="chat")
    monkeypatch.setattr(store, "_client", redis.Redis(port=1, socket_timeout=0.2, socket_connect_timeout=0.2))
    llm_server.script(None, "Sure.")
    turn, reply = chat.chat_turn(conversation, "Plan the days for me.", llm=scripted_llm)
    assert reply.content == "Sure." and not turn.state_available
    assert "<keep>" not in llm_server.chat_requests()[-1]["messages"][0]["content"]  # not asked while it cannot keep

    monkeypatch.undo()  # Redis is back: what was kept is there, and the next turn carries it
    llm_server.script(None, "Oslo it is.")
    turn, _reply = chat.chat_turn(conversation, "Where were we going?", llm=scripted_llm)
    assert turn.state_available and "destination: Oslo" in llm_server.chat_requests()[-1]["messages"][0]["content"]


@pytest.mark.parametrize("auto_learn", [True, False])
def test_at_the_chats_end_what_it_kept_about_the_user_is_offered_to_long_term_memory(alice, auto_learn):
    from memoryapp.engine.chat import chat_end
    from memoryapp.engine.learning import turns
    from memoryapp.models import Memory, MemorySettings
    from memoryapp.pipeline.models import LearnJob, MemorySuggestion

    MemorySettings.objects.update_or_create(user=alice, defaults={"auto_extract": auto_learn})
    conversation = Conversation.objects.create(user=alice, title="flights")
    conversation.messages.create(role="user", content="Find me a flight to Lisbon in May.")
    session = store.chat_session(conversation.pk)
    store.put(alice.pk, session, {"destination": "Lisbon", "dates": "2026-05-04 – 2026-05-09"}, by="chat")
    store.put(alice.pk, session, {"seat": "I always pick aisle seats", "饮食": "我不吃香菜"}, by="you")

    chat_end.finish_chat(conversation.pk)
    job = LearnJob.objects.get(user=alice, source="working memory")
    assert sorted(m["content"] for m in job.messages) == ["I always pick aisle seats", "我不吃香菜"]  # no task detail
    turns.run_learning(job.pk, llm=None)  # what the worker runs

    if auto_learn:
        learnt = set(Memory.objects.filter(user=alice).values_list("content", flat=True))
        assert any("aisle" in content for content in learnt) and any("香菜" in content for content in learnt)
        assert not any("Lisbon" in content for content in learnt)
    else:
        offered = set(MemorySuggestion.objects.filter(user=alice).values_list("content", flat=True))
        assert any("aisle" in content for content in offered) and any("香菜" in content for content in offered)
        assert not Memory.objects.filter(user=alice).exists()
    chat_end.finish_chat(conversation.pk)  # ended twice: offered once
    assert LearnJob.objects.filter(user=alice, source="working memory").count() == 1


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        (
            "I want to book a flight to Beijing.",
            "Let's make it December 30 to January 3, for 2 people.",
            {"destination": "Beijing", "dates": DATES, "people": 2},
        ),
        (
            "帮我订一张去北京的机票。",
            "就定12月30号到1月3号，我们两个人。",
            {"destination": "北京", "dates": DATES, "people": 2},
        ),
    ],
)
def test_without_a_model_the_rules_keep_the_task_and_the_next_prompt_carries_it(alice, first, second, expected):
    from datetime import UTC, datetime

    conversation = Conversation.objects.create(user=alice, title="trip")
    now = datetime(2025, 12, 1, 9, 0, tzinfo=UTC)
    chat.finish_turn(*_offline(chat.start_turn(conversation, first, llm=None, now=now)))
    chat.finish_turn(*_offline(chat.start_turn(conversation, second, llm=None, now=now)))
    turn = chat.start_turn(conversation, "What did we settle on?", llm=None, now=now)

    kept = {entry.key: entry.value for entry in store.entries(alice.pk, store.chat_session(conversation.pk))}
    assert expected.items() <= kept.items() and "task" in kept
    system = turn.prompt[0]["content"]
    assert "<keeping_in_mind>" in system and f"dates: {DATES}" in system
    assert "<keep>" not in system  # no model: nothing is asked of the reply


def _offline(turn):
    return turn, chat.reply(turn)
