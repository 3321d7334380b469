"""The trained relevance model choosing what a chat turn is handed (engine/learned/relevance.py), through the
real chat turn with no language model: named bilingual scenarios the fixed cosine gates got wrong, and
the citations that follow from them."""

from __future__ import annotations

import pytest

from conversations.models import Conversation
from memoryapp.engine.chat.chat import finish_turn, start_turn
from memoryapp.engine.learned.model import usable
from memoryapp.engine.memories.write import add_memory

pytestmark = pytest.mark.django_db

STACK = "My team's backend is Go with Postgres, deployed on Kubernetes; the code lives in a GitHub monorepo."
STACK_ZH = "我们团队的后端用 Go 和 Postgres，部署在 Kubernetes 上，代码放在 GitHub 的一个大仓库里。"
MARATHON = "I'm training for the Berlin marathon in September and want to finish under 3:30."
HIKING_ZH = "我每个周末都去爬山，最近常走杭州的九溪十八涧。"
NIGHTS = "I work 12-hour night shifts as an ICU nurse, three nights in a row."


@pytest.fixture
def memories(alice):
    stored = {
        key: add_memory(alice, text, kind=kind).memory
        for key, text, kind in (
            ("stack", STACK, "fact"),
            ("stack_zh", STACK_ZH, "fact"),
            ("marathon", MARATHON, "goal"),
            ("hiking", HIKING_ZH, "context"),
            ("nights", NIGHTS, "fact"),
            ("cat", "Our cat Miso is 12 and has kidney disease.", "fact"),
            ("tea", "用户不喝咖啡，只喝龙井绿茶。", "preference"),
        )
    }
    return {memory.pk: key for key, memory in stored.items()}


def handed(alice, memories, message: str) -> list[str]:
    turn = start_turn(
        Conversation.objects.create(user=alice),
        message,
        llm=None,
        enqueue_extraction=lambda conversation_id, message_ids: None,
    )
    return [memories[item.memory.pk] for item in turn.recalled]


def test_the_model_ships_for_the_default_embedder():
    assert usable("relevance") is not None


@pytest.mark.parametrize(
    "message, needed",
    [
        ("how should I set up CI for this repo?", {"stack", "stack_zh"}),
        ("我们这个仓库的 CI 流水线怎么配比较好？", {"stack", "stack_zh"}),
        # "set up continuous integration for this repo please" (a request naming no one) is under the
        # message gate chosen for precision in issue #43 (0.65 against 0.70): a known miss, docs/recall.md.
    ],
)
def test_a_question_not_about_the_user_still_gets_their_stack(alice, memories, message, needed):
    assert needed & set(handed(alice, memories, message))


@pytest.mark.parametrize(
    "message",
    [
        "what's the average finish time for a marathon?",
        "把这句话翻译成英文：这个周末我们一起去爬山吧",  # the gates: the hiking and marathon memories
    ],
)
def test_a_general_knowledge_question_gets_nothing_personal(alice, memories, message):
    assert handed(alice, memories, message) == []


@pytest.mark.parametrize("message", ["lol you are hilarious, what a week 😂", "哈哈你太逗了，今天累死了"])
def test_small_talk_outside_the_word_lists_gets_nothing(alice, memories, message):
    assert handed(alice, memories, message) == []


def test_the_chips_cite_exactly_what_was_handed(alice, memories):
    turn = start_turn(
        Conversation.objects.create(user=alice),
        "how should I set up CI for this repo?",
        llm=None,
        enqueue_extraction=lambda conversation_id, message_ids: None,
    )
    reply = finish_turn(turn, "Cache the Go modules and run the tests against a Postgres service.")
    cited = list(reply.citations.order_by("rank").values_list("memory_id", flat=True))
    assert cited == [item.memory.pk for item in turn.recalled] and cited
    assert all(memory.content in turn.prompt[0]["content"] for memory in (item.memory for item in turn.recalled))


# Someone close to the user, asked about by name in the third person: the message model alone reads
# these as not about the user (LoCoMo's "When did Caroline go to the support group?" recalled nothing).
PEOPLE = (
    ("anna", "My sister Anna moved to Munich last spring for a job at BMW.", "fact"),
    ("xiaoyu", "我妹妹小雨今年考上了成都的四川大学，读临床医学。", "fact"),
    ("dune", "I couldn't get into Dune, the prose felt heavy.", "preference"),
)


@pytest.fixture
def people(alice, memories):
    stored = {add_memory(alice, text, kind=kind).memory.pk: key for key, text, kind in PEOPLE}
    return {**memories, **stored}


@pytest.mark.parametrize(
    "message, needed",
    [
        ("Where does Anna live now?", "anna"),
        ("小雨现在在哪儿上学？", "xiaoyu"),
    ],
)
def test_a_question_about_someone_close_by_name_cites_their_memory(alice, people, message, needed):
    turn = start_turn(
        Conversation.objects.create(user=alice),
        message,
        llm=None,
        enqueue_extraction=lambda conversation_id, message_ids: None,
    )
    assert needed in [people[item.memory.pk] for item in turn.recalled]
    reply = finish_turn(turn, "…")
    cited = [people[pk] for pk in reply.citations.values_list("memory_id", flat=True)]
    assert needed in cited


@pytest.mark.parametrize(
    "message",
    [
        "When did Einstein publish relativity?",
        "Who wrote Dune, and in what year?",  # a thing the memories name is not someone close
        "爱因斯坦是哪一年提出相对论的？",
    ],
)
def test_a_general_question_naming_someone_famous_cites_nothing(alice, people, message):
    turn = start_turn(
        Conversation.objects.create(user=alice),
        message,
        llm=None,
        enqueue_extraction=lambda conversation_id, message_ids: None,
    )
    reply = finish_turn(turn, "…")
    assert turn.recalled == [] and not reply.citations.exists()


# Chatter in the first person, beside a memory on the same topic: the user tells, asks nothing, and the
# reply needs no memory (bench.chat --split past: "haha my 邻居 just called me 老外 again lol", "周一好难熬啊").
@pytest.mark.parametrize(
    "message",
    [
        "我同事今天又一口气喝了三杯咖啡，笑死我了",
        "haha my 邻居 just said I look like a marathon runner lol",
    ],
)
def test_chatter_in_the_first_person_gets_nothing(alice, memories, message):
    assert handed(alice, memories, message) == []


# A question that mixes the two languages finds the memory written in one of them.
@pytest.mark.parametrize(
    "message, needed",
    [
        ("这周末想去 hiking，推荐一条适合我的 route 吧", "hiking"),
        ("帮我排一下这周的 training plan，我的比赛目标你知道的", "marathon"),
    ],
)
def test_a_mixed_language_question_finds_its_memory(alice, memories, message, needed):
    assert needed in handed(alice, memories, message)


@pytest.mark.parametrize(
    "message",
    [
        "My neighbour wants to start running, any tips?",
        "My colleague is looking for a good tea, what would you suggest?",
        "我朋友想学游泳，怎么入门？",
        "我同事想养猫，有什么要注意的？",
    ],
)
def test_a_question_on_behalf_of_someone_else_cites_none_of_the_users_memories(alice, memories, message):
    # The user runs, drinks tea and has a cat: none of that is what a friend's question needs.
    assert handed(alice, memories, message) == []


@pytest.mark.parametrize(
    "message, needed",
    [
        ("My friend and I are training for a marathon together, how should we plan?", "marathon"),
        ("我同事约我周末去爬山，走哪条线好？", "hiking"),
    ],
)
def test_a_question_about_someone_else_with_the_users_own_part_still_gets_it(alice, memories, message, needed):
    assert needed in handed(alice, memories, message)


@pytest.mark.parametrize(
    "message",
    ["Can you recommend a good book for my flight?", "What should I name my new plant?", "我想换个手机壳，有推荐吗？"],
)
def test_a_need_none_of_the_memories_meets_gets_none_of_them(alice, memories, message):
    # The message asks for something personal, so recall runs; none of the seven memories is about it, and
    # each must fall below the pair threshold (without it, the three nearest would be handed).
    assert handed(alice, memories, message) == []
