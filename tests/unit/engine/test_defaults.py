"""Each task's default without a model (engine/llm/defaults.py), through the task's own interface: `llm=None`."""

from __future__ import annotations

import pytest

from memoryapp.engine.learned.model import rules_only
from memoryapp.engine.llm.candidates import extract_candidates
from memoryapp.engine.llm.decisions import decide
from memoryapp.engine.llm.delimiters import format_memories_block
from memoryapp.engine.llm.episodes import summarise_episode
from memoryapp.engine.llm.replies import reply, stream_reply
from memoryapp.engine.llm.schemas import (
    Candidate,
    CandidateWithNeighbours,
    DecisionAction,
    MemoryKind,
    Neighbour,
)
from memoryapp.engine.sensitive import contains_sensitive

NO_MODEL = None


@pytest.fixture(autouse=True)
def _the_rules() -> None:
    """These are the rules' tests: the shipped trained model steps aside (test_learned_extraction.py)."""
    with rules_only():
        yield


def user(text: str) -> dict:
    return {"role": "user", "content": text}


def extracted(*texts: str) -> dict[str, MemoryKind]:
    result = extract_candidates([user(t) for t in texts], NO_MODEL)
    return {c.content: c.kind for c in result.candidates}


def item(content: str, kind: MemoryKind, *neighbours: tuple[int, str, MemoryKind]) -> CandidateWithNeighbours:
    candidate = Candidate(content=content, kind=kind, importance=0.6, confidence=0.6)
    return CandidateWithNeighbours(
        candidate=candidate, neighbours=[Neighbour(id=i, content=c, kind=k) for i, c, k in neighbours]
    )


def test_it_extracts_english_preferences_facts_goals_and_lessons() -> None:
    found = extracted(
        "Hi there! I prefer functional style. My name is Ann. I live in Berlin.\n"
        "I'm learning Rust. I learned that tests catch bugs early. Never deploy on Fridays."
    )
    assert found == {
        "I prefer functional style": MemoryKind.PREFERENCE,
        "My name is Ann": MemoryKind.FACT,
        "I live in Berlin": MemoryKind.FACT,
        "I'm learning Rust": MemoryKind.GOAL,
        "I learned that tests catch bugs early": MemoryKind.LESSON,
        "Never deploy on Fridays": MemoryKind.LESSON,
    }


def test_it_extracts_chinese_in_chinese() -> None:
    found = extracted("我叫小明。我喜欢 Vue 3！我住在上海；我打算明年学日语。教训：上线前要先备份数据库")
    assert found == {
        "我叫小明": MemoryKind.FACT,
        "我喜欢 Vue 3！": MemoryKind.PREFERENCE,
        "我住在上海": MemoryKind.FACT,
        "我打算明年学日语": MemoryKind.GOAL,
        "教训：上线前要先备份数据库": MemoryKind.LESSON,
    }


def test_it_sets_importance_and_confidence_by_kind() -> None:
    result = extract_candidates([user("I like tea. I work at Acme.")], NO_MODEL)
    assert [(c.importance, c.confidence) for c in result.candidates] == [(0.6, 0.6), (0.7, 0.6)]


def test_it_reads_only_user_turns() -> None:
    messages = [user("Hello."), {"role": "assistant", "content": "I like helping people. My name is Bot."}]
    assert extract_candidates(messages, NO_MODEL).candidates == []


def test_it_skips_questions() -> None:
    assert (
        extracted(
            "Do you like Vue?", "What is my name", "I like cats?", "我是不是喜欢猫", "我喜欢猫吗", "你知道我住在哪里？"
        )
        == {}
    )


def test_it_never_extracts_secrets() -> None:
    found = extracted(
        "My password is hunter2. My API key is sk-abcdefghijklmnopqrstuvwx. "
        "My card number is 4111 1111 1111 1111. I use sk-proj-abcdefghijklmnop1234 daily.\n"
        "我的密码是123456。我的身份证号是11010119900307123X。我喜欢喝茶。"
    )
    assert found == {"我喜欢喝茶": MemoryKind.PREFERENCE}


def test_it_flags_sensitive_text() -> None:
    assert contains_sensitive("号是110101199003071234")
    assert contains_sensitive("card 4111-1111-1111-1111")
    assert not contains_sensitive("I pin my dependencies and have 2 cats")


def test_it_deduplicates_repeated_sentences() -> None:
    assert list(extracted("I like tea.", "I like tea")) == ["I like tea"]


def test_it_skips_a_candidate_already_known() -> None:
    result = decide([item("I like tea", MemoryKind.PREFERENCE, (7, "i like tea.", MemoryKind.PREFERENCE))], NO_MODEL)
    assert result.decisions[0].action is DecisionAction.SKIP


def test_it_updates_a_same_kind_neighbour_on_a_stated_change() -> None:
    result = decide(
        [
            item(
                "I switched to Svelte from Vue",
                MemoryKind.PREFERENCE,
                (3, "My name is Ann", MemoryKind.FACT),
                (4, "I use Vue", MemoryKind.PREFERENCE),
            ),
            item("I now live in Munich", MemoryKind.FACT, (5, "I live in Berlin", MemoryKind.FACT)),
            item(
                "我现在住在北京", MemoryKind.FACT, (6, "我叫小明", MemoryKind.FACT), (8, "我住在上海", MemoryKind.FACT)
            ),
        ],
        NO_MODEL,
    )
    assert [(d.action, d.target_id) for d in result.decisions] == [
        (DecisionAction.UPDATE, 4),
        (DecisionAction.UPDATE, 5),
        (DecisionAction.UPDATE, 8),
    ]


def test_it_adds_when_the_change_is_about_something_else() -> None:
    result = decide(
        [
            item("I now live in Munich", MemoryKind.FACT, (3, "My name is Ann", MemoryKind.FACT)),
            item("I like tea", MemoryKind.PREFERENCE, (4, "I like coffee", MemoryKind.PREFERENCE)),
            item("I like tea", MemoryKind.PREFERENCE),
        ],
        NO_MODEL,
    )
    assert [(d.action, d.target_id) for d in result.decisions] == [
        (DecisionAction.ADD, None),
        (DecisionAction.ADD, None),
        (DecisionAction.SKIP, None),
    ]


def test_an_episode_keeps_the_plan_and_the_event_in_whole_sentences() -> None:
    said = [
        user(
            "I like tea. We decided to ship the beta on Friday, after the last review of the billing page "
            "and the onboarding emails. Yesterday the staging deploy failed twice. What should I eat?"
        )
    ]
    assert summarise_episode(said, NO_MODEL, learnt=["I like tea"]) == (
        "We decided to ship the beta on Friday, after the last review of the billing page and the onboarding "
        "emails. Yesterday the staging deploy failed twice."
    )
    assert (
        summarise_episode(
            [user("我喜欢喝茶。我们决定下周五发布测试版。昨天预发环境的部署失败了两次")],
            NO_MODEL,
            learnt=["我喜欢喝茶"],
        )
        == "我们决定下周五发布测试版。昨天预发环境的部署失败了两次。"
    )


def test_a_chat_that_only_yielded_typed_memories_leaves_no_episode() -> None:
    assert (
        summarise_episode(
            [user("I live in Berlin. I like tea. What's a good café?")],
            NO_MODEL,
            learnt=["I live in Berlin", "I like tea"],
        )
        == ""
    )
    assert (
        summarise_episode(
            [user("我住在上海。我喜欢喝乌龙茶。附近有什么好的茶馆吗？")],
            NO_MODEL,
            learnt=["我住在上海", "我喜欢喝乌龙茶"],
        )
        == ""
    )
    assert summarise_episode([user("hi"), {"role": "assistant", "content": "We decided nothing yet."}], NO_MODEL) == ""
    assert summarise_episode([user("How do I rebase? Thanks, I'll try that tomorrow.")], NO_MODEL) == ""
    assert summarise_episode([user("怎么回滚？好的，我明天试试。")], NO_MODEL) == ""


def test_a_plan_already_learnt_as_a_goal_is_not_told_again() -> None:
    said = [user("I plan to run a marathon next year.")]
    assert summarise_episode(said, NO_MODEL, learnt=["I plan to run a marathon next year"]) == ""


def test_it_says_no_model_is_configured_and_echoes_memories() -> None:
    messages = [
        {"role": "system", "content": "You are helpful.\n" + format_memories_block(["I like Vue 3", "My name is Ann"])},
        user("What framework should I use?"),
    ]
    answer = reply(messages, NO_MODEL)
    assert "No language model is configured" in answer
    assert answer.endswith("From memory:\n- I like Vue 3\n- My name is Ann")


def test_it_replies_in_chinese_to_chinese() -> None:
    messages = [{"role": "system", "content": format_memories_block(["我喜欢 Vue 3"])}, user("我该用什么 web 框架？")]
    answer = reply(messages, NO_MODEL)
    assert answer.startswith("尚未配置语言模型")
    assert answer.endswith("记忆中：\n- 我喜欢 Vue 3")


@pytest.mark.parametrize(
    "text",
    [
        "我们项目用 Drizzle 还是 Prisma？",
        "我们项目用 Drizzle ORM 还是 Prisma ORM？",
        "我们用 TypeScript 还是 JavaScript 写 Next.js 项目？",
    ],
)
def test_it_replies_in_chinese_to_a_chinese_message_that_names_products(text: str) -> None:
    assert reply([user(text)], NO_MODEL).startswith("尚未配置语言模型")


def test_it_replies_in_english_to_an_english_message_that_quotes_chinese() -> None:
    assert reply([user("How do I say 谢谢 politely in a letter?")], NO_MODEL).startswith("No language model")


def test_it_follows_the_page_language_when_the_message_cannot_tell() -> None:
    from django.utils import translation

    with translation.override("zh-hans"):
        assert reply([user("👍 123")], NO_MODEL).startswith("尚未配置语言模型")
        assert reply([user("我用 React Native 和 Expo")], NO_MODEL).startswith("尚未配置语言模型")
    with translation.override("en"):
        assert reply([user("👍 123")], NO_MODEL).startswith("No language model")


def test_it_streams_the_reply_in_small_chunks() -> None:
    messages = [user("Hello there")]
    chunks = list(stream_reply(messages, NO_MODEL))
    assert len(chunks) > 5
    assert "".join(chunks) == reply(messages, NO_MODEL)


def test_it_learns_the_chinese_statements_a_browser_chat_once_lost() -> None:
    found = extracted(
        "Docker 构建又失败了，网络超时。我的环境需要使用 proxy-env 来运行 docker 命令。",
        "我不喝咖啡，只喝龙井绿茶。",
        "我现在更喜欢用 React 了。",
        "我每天早上六点跑步",
    )
    assert found == {
        "我的环境需要使用 proxy-env 来运行 docker 命令": MemoryKind.LESSON,
        "我不喝咖啡，只喝龙井绿茶": MemoryKind.PREFERENCE,
        "我现在更喜欢用 React 了": MemoryKind.PREFERENCE,
        "我每天早上六点跑步": MemoryKind.PREFERENCE,
    }


def test_a_clause_that_points_back_keeps_what_it_points_at() -> None:
    found = extracted(
        "My Docker builds keep timing out on the network; I learned I have to run them through proxy-env."
    )
    assert list(found) == [
        "My Docker builds keep timing out on the network; I learned I have to run them through proxy-env"
    ]
    assert "小雨" in next(iter(extracted("跟你说下我女儿小雨的情况", "她对芒果过敏，这个以后要注意")), "")


def test_a_new_value_for_the_same_slot_supersedes_but_a_new_topic_does_not() -> None:
    vue = (7, "我喜欢用 Vue 3 写前端", MemoryKind.PREFERENCE)
    react = decide([item("我现在更喜欢用 React 了", MemoryKind.PREFERENCE, vue)], NO_MODEL).decisions[0]
    rust = decide([item("我现在用 Rust 写后端", MemoryKind.PREFERENCE, vue)], NO_MODEL).decisions[0]
    assert (react.action, react.target_id) == (DecisionAction.UPDATE, 7)
    assert rust.action is DecisionAction.ADD


def test_questions_and_small_talk_still_teach_nothing() -> None:
    assert extracted("你知道 Obsidian 吗？", "What's a good Python book?", "哈哈好的", "thanks!") == {}
