"""Working memory without a model: the task slots a user message states (memoryapp/engine/chat_state/rules.py).

Said on Saturday 20 December 2025 (SAT) or Wednesday 4 March 2026 (WED), so "next Friday" and "下周五"
have one answer."""

from __future__ import annotations

from datetime import datetime

import pytest

from memoryapp.engine.chat_state.amounts import zh_number
from memoryapp.engine.chat_state.rules import task_entries

SAT = datetime.fromisoformat("2025-12-20T10:00:00+08:00")
WED = datetime.fromisoformat("2026-03-04T09:00:00+08:00")
FLIGHT = {"task": "book a flight", "destination": "Beijing", "date": "2025-12-30"}
TRIP = {"task": "book a flight", "destination": "Beijing", "dates": "2025-12-30 – 2026-01-03"}
ZH_TRIP = {"task": "订机票", "destination": "北京", "dates": "2025-12-30 – 2026-01-03"}


def entries(message: str, now: datetime = SAT, kept: dict | None = None) -> dict:
    return task_entries(message, now=now, kept=kept or {})


def test_it_reads_a_whole_english_request():
    found = entries(
        "I need to book a flight from Shanghai to Beijing from Dec 30 to Jan 3 for 2 people, budget of $800"
    )
    assert found == {
        "task": "book a flight",
        "origin": "Shanghai",
        "destination": "Beijing",
        "dates": "2025-12-30 – 2026-01-03",
        "people": 2,
        "budget": "$800",
    }


def test_it_reads_a_whole_chinese_request():
    found = entries("帮我订一张12月30号去北京的机票，1月3号回来，两个人，预算5000元")
    assert found == {
        "task": "订机票",
        "destination": "北京",
        "dates": "2025-12-30 – 2026-01-03",
        "people": 2,
        "budget": "5000 元",
    }


@pytest.mark.parametrize(
    ("message", "task"),
    [
        ("I want to book a flight to Beijing", "book a flight"),
        ("Can you help me find a hotel in Shanghai?", "find a hotel"),
        ("I'd like to rent a car", "rent a car"),
        ("Let's plan a trip to Japan", "plan a trip"),
        ("we're going to fly to Tokyo", "fly to Tokyo"),
        ("I'm planning to visit Seoul next week", "visit Seoul"),
        ("帮我订一张去北京的机票", "订机票"),
        ("请帮我订下周五从上海到北京的高铁票", "订高铁票"),
        ("我想去北京玩", "去北京玩"),
        ("我打算后天飞成都", "飞成都"),
        ("想要订个酒店", "订酒店"),
    ],
)
def test_it_names_the_task_as_a_short_phrase(message, task):
    assert entries(message, WED)["task"] == task


@pytest.mark.parametrize(
    ("message", "origin", "destination"),
    [
        ("I want to fly from Boston to Denver", "Boston", "Denver"),
        ("I need to fly out of Chicago to Denver", "Chicago", "Denver"),
        ("帮我订从上海到北京的票", "上海", "北京"),
        ("我们准备从广州出发去成都", "广州", "成都"),
        ("请帮我查从深圳飞北京的航班", "深圳", "北京"),
    ],
)
def test_it_reads_where_from_and_where_to(message, origin, destination):
    found = entries(message)
    assert (found.get("origin"), found["destination"]) == (origin, destination)


@pytest.mark.parametrize(
    ("message", "now", "key", "value"),
    [
        ("I'd like to rent a car next Friday", WED, "date", "2026-03-13"),
        ("I'd like to rent a car on Friday", WED, "date", "2026-03-06"),
        ("I want to go to Beijing in 3 days", SAT, "date", "2025-12-23"),
        ("I want to book a room for the day after tomorrow", SAT, "date", "2025-12-22"),
        ("I'm planning to visit Seoul from the 30th to the 3rd", SAT, "dates", "2025-12-30 – 2026-01-03"),
        ("I want to go to Lisbon Jan 5-9", SAT, "dates", "2026-01-05 – 2026-01-09"),
        ("我想下周五去北京", WED, "date", "2026-03-13"),
        ("我想后天去北京", SAT, "date", "2025-12-22"),
        ("我想大后天去北京", SAT, "date", "2025-12-23"),
        ("我想12月30号到1月3号去北京玩", SAT, "dates", "2025-12-30 – 2026-01-03"),
        ("帮我订两间12月30号入住的房间，1月2号退房", SAT, "dates", "2025-12-30 – 2026-01-02"),
    ],
)
def test_it_counts_days_from_when_the_message_was_said(message, now, key, value):
    assert entries(message, now)[key] == value


@pytest.mark.parametrize(
    ("message", "time"),
    [
        ("the flight should be at 5:15 pm", "17:15"),
        ("let's meet at 7pm", "19:00"),
        ("at 17:30 then", "17:30"),
        ("下午三点半的航班", "15:30"),
        ("时间定在晚上8点", "20:00"),
        ("上午十点一刻", "10:15"),
    ],
)
def test_it_reads_the_time_whole(message, time):
    assert entries(message, kept=FLIGHT)["time"] == time


@pytest.mark.parametrize(
    ("message", "budget"),
    [
        ("budget of $800", "$800"),
        ("keep it under 5000 yuan", "5000 元"),
        ("no more than 1.5k euros", "€1500"),
        ("预算5000元", "5000 元"),
        ("不超过三千块", "3000 元"),
        ("预算一万五", "15000"),
    ],
)
def test_it_reads_the_budget_with_its_currency(message, budget):
    assert entries(message, kept=TRIP)["budget"] == budget


@pytest.mark.parametrize(
    ("message", "people"),
    [
        ("for 2 people", 2),
        ("for the four of us", 4),
        ("2 adults and 2 kids", 4),
        ("两个人", 2),
        ("我们三个", 3),
        ("带孩子一共4人", 4),
        ("我们俩", 2),
    ],
)
def test_it_counts_the_people(message, people):
    assert entries(message, kept=TRIP)["people"] == people


@pytest.mark.parametrize(
    ("message", "names"),
    [
        ("please book it under the name Li Wei", ["Li Wei"]),
        ("passengers: Zhang Wei and Wang Fang", ["Zhang Wei", "Wang Fang"]),
        ("乘客是张伟和王芳", ["张伟", "王芳"]),
        ("帮我订去重庆的火车票，用王磊的名字", ["王磊"]),
    ],
)
def test_it_takes_names_only_said_as_the_tasks(message, names):
    assert entries(message, kept=TRIP)["names"] == names


def test_a_name_in_passing_is_not_the_tasks():
    assert "names" not in entries("I want to book a flight to Beijing, Li Wei recommended it")


@pytest.mark.parametrize(
    ("message", "kept", "expected"),
    [
        ("actually make it the 2nd", FLIGHT, {"date": "2026-01-02"}),
        ("change the destination to Shanghai", FLIGHT, {"destination": "Shanghai"}),
        ("we'll fly back on the 4th", TRIP, {"dates": "2025-12-30 – 2026-01-04"}),
        ("目的地改成上海", ZH_TRIP, {"destination": "上海"}),
        ("3号改成4号回来", ZH_TRIP, {"dates": "2025-12-30 – 2026-01-04"}),
        ("改成三个人吧", ZH_TRIP, {"people": 3}),
    ],
)
def test_a_change_replaces_the_earlier_value(message, kept, expected):
    assert entries(message, kept=kept) == expected


def test_a_date_for_a_kept_trip_needs_no_new_task():
    assert entries("Jan 5 works better", kept=FLIGHT) == {"date": "2026-01-05"}


@pytest.mark.parametrize(
    "message",
    ["what dates did we settle on?", "Is 5000 enough?", "你觉得哪天好？", "机票多少钱？", "明天下雨吗"],
)
def test_a_question_writes_nothing(message):
    assert entries(message, kept=TRIP) == {}


def test_a_request_asked_as_a_question_still_states():
    assert entries("Can you help me find a hotel in Shanghai?")["destination"] == "Shanghai"


@pytest.mark.parametrize(
    "message",
    [
        "I love jazz music",
        "The meeting went well yesterday.",
        "I had a great time in Paris last summer",
        "send it to Alex please",
        "今天吃了火锅，很好吃",
        "我去年去过西安，特别喜欢",
        "他下周五去北京出差",
    ],
)
def test_a_message_about_something_else_writes_nothing(message):
    assert entries(message) == {}


@pytest.mark.parametrize("message", ["I don't want to book a hotel", "我不想去了"])
def test_a_task_declined_is_no_task(message):
    assert "task" not in entries(message, kept=ZH_TRIP)


@pytest.mark.parametrize(
    ("text", "value"), [("三千", 3000), ("一万五", 15000), ("十二", 12), ("一百零五", 105), ("两万", 20000)]
)
def test_chinese_numerals_read_as_written(text, value):
    assert zh_number(text) == value
