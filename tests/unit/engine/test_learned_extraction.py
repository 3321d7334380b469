"""What is learnt with no model configured, decided by the shipped trained model (weights/extraction.npz)
through the task's own interface (`extract_candidates(messages, llm=None)`), in both languages."""

from __future__ import annotations

import numpy as np
import pytest

from memoryapp.engine.learned import extraction as learned_extraction
from memoryapp.engine.learned.model import rules_only, usable
from memoryapp.engine.llm.candidates import extract_candidates
from memoryapp.engine.llm.schemas import MemoryKind

NO_MODEL = None


def learnt(*turns: str) -> dict[str, MemoryKind]:
    messages = [{"role": "user", "content": t} for t in turns]
    return {c.content: c.kind for c in extract_candidates(messages, NO_MODEL).candidates}


def rules_learn(*turns: str) -> dict[str, MemoryKind]:
    with rules_only():
        return learnt(*turns)


def test_the_shipped_model_is_the_no_model_default() -> None:
    assert usable(learned_extraction.MODEL_NAME) is not None


@pytest.mark.parametrize(
    "said",
    [
        "Got a golden retriever puppy last weekend, he chews absolutely everything.",  # a family fact in passing
        "Standups at 8 are brutal, nothing works in my head until the second espresso.",  # a habit implied by a gripe
    ],
)
def test_it_learns_an_english_phrasing_the_rules_missed(said: str) -> None:
    assert rules_learn(said) == {}
    assert list(learnt(said)) == [said.rstrip(".")]


@pytest.mark.parametrize(
    "said",
    [
        "我跟你说，我这人特别怕冷，冬天出门必须穿秋裤",  # a standing preference said in passing
        "今天终于把驾照考下来了",  # something that happened to them
    ],
)
def test_it_learns_a_chinese_phrasing_the_rules_missed(said: str) -> None:
    assert rules_learn(said) == {}
    assert list(learnt(said)) == [said]


def test_it_keeps_the_context_given_before_a_question_in_the_users_words() -> None:
    assert learnt("As a night-shift nurse I never know when to eat, any meal plan ideas?") == {
        "As a night-shift nurse I never know when to eat": MemoryKind.FACT
    }
    assert list(learnt("我对花生过敏，这道菜能吃吗？")) == ["我对花生过敏"]


@pytest.mark.parametrize("said", ["Cool, thanks!", "haha ok that's hilarious", "哈哈好的，谢谢！", "唉，今天好累"])
def test_small_talk_learns_nothing(said: str) -> None:
    assert learnt(said) == {}


@pytest.mark.parametrize(
    "said",
    [
        "What's the difference between TCP and UDP?",
        "explain recursion to me like I'm five",
        "龙井和碧螺春有什么区别？",
        "帮我解释一下什么是复利",
    ],
)
def test_a_general_question_or_request_learns_nothing(said: str) -> None:
    assert learnt(said) == {}


@pytest.mark.parametrize(
    "said",
    [
        "my bank PIN is four eight two one, remember it",  # the rules kept this one
        "我的支付密码是六个八，帮我记一下",
    ],
)
def test_a_secret_said_in_words_learns_nothing(said: str) -> None:
    assert learnt(said) == {}


def test_loading_the_shipped_weights_gives_the_decisions_training_made() -> None:
    model = usable(learned_extraction.MODEL_NAME)
    probe = model.meta["probe"]
    pieces = [learned_extraction.Piece(p["text"], p["previous"]) for p in probe]
    keep, _kinds = learned_extraction.score(model, pieces, learned_extraction.embed([p.text for p in pieces]))
    assert np.allclose(keep, [p["keep"] for p in probe], atol=1e-4)
    assert [k >= model.threshold for k in keep] == [p["keep"] >= model.threshold for p in probe]


def learnt_in_chat(*turns: tuple[str, str]) -> list[str]:
    messages = [{"role": role, "content": text} for role, text in turns]
    return [c.content for c in extract_candidates(messages, NO_MODEL).candidates]


@pytest.mark.parametrize(
    "turns, words",
    [
        (
            [
                ("user", "Quick thing about my brother Tom."),
                ("assistant", "Sure, what about him?"),
                ("user", "He's allergic to shellfish, so keep that in mind when I ask for party recipes."),
            ],
            ["Tom", "shellfish"],
        ),
        (
            [("user", "I finally adopted a rescue greyhound called Pepper. She sleeps about twenty hours a day.")],
            ["Pepper", "twenty hours"],
        ),
        (
            [
                (
                    "user",
                    "Always back up the router config before a firmware update. Learned that the hard way in March.",
                )
            ],
            ["router", "March"],
        ),
        (
            [
                ("user", "跟你说下我儿子小宇的情况"),
                ("assistant", "好的，你说。"),
                ("user", "他对鸡蛋过敏，以后推荐早餐的时候注意一下"),
            ],
            ["小宇", "鸡蛋"],
        ),
        (
            [
                ("user", "我去年在阳台种了一棵柠檬树"),
                ("assistant", "不错呀！"),
                ("user", "不过这东西特别怕冻，冬天一定要搬进屋里"),
            ],
            ["柠檬树", "搬进屋"],
        ),
    ],
)
def test_one_thought_said_in_two_sentences_is_one_memory(turns, words) -> None:
    memories = learnt_in_chat(*turns)
    assert len(memories) == 1, memories
    assert all(word in memories[0] for word in words)


@pytest.mark.parametrize(
    "said",
    [
        "I'm a dentist in Leeds. Also I can't stand jazz, never put it on any playlist for me.",
        "我在成都做会计。我周末一般去爬山",
    ],
)
def test_two_thoughts_in_one_message_stay_two_memories(said: str) -> None:
    assert len(learnt_in_chat(("user", said))) == 2
