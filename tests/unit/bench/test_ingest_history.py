"""bench.ingest_history: its scripted model answers the engine's own prompts (so a changed prompt fails here,
not an hour into a run), and its table marks a missed goal and a failed question."""

from __future__ import annotations

from bench.ingest_history import GOALS, scripted_model
from bench.tables import (
    _ingest_history_api_headline,
    _ingest_history_headline,
    ingest_history_api_table,
    ingest_history_table,
)
from memoryapp.engine.llm.candidates import extract_candidates
from memoryapp.engine.llm.decisions import decide
from memoryapp.engine.llm.schemas import CandidateWithNeighbours, DecisionAction, Neighbour
from memoryapp.providers.llm.openai_compat import OpenAICompatibleLLM


def test_the_scripted_model_finds_the_first_user_turn_and_adds_it():
    with scripted_model() as server:
        llm = OpenAICompatibleLLM(server.url, "bench", "scripted-model")
        window = [
            {"role": "user", "content": "I live in Chengdu"},
            {"role": "assistant", "content": "Nice."},
            {"role": "user", "content": "我喜欢爬山"},
        ]
        found = extract_candidates(window, llm).candidates
        near = [Neighbour(id=7, content="I live in Berlin", kind="fact")]
        decided = decide([CandidateWithNeighbours(candidate=found[0], neighbours=near)], llm).decisions

    assert [c.content for c in found] == ["I live in Chengdu"]
    assert [d.action for d in decided] == [DecisionAction.ADD]
    assert llm.calls == 2


def _format(name: str, learn_s: float, passed: bool) -> dict:
    return {
        "file": name,
        "conversations": 1000,
        "user_turns": 9964,
        "receive_s": 0.4,
        "learn_s": learn_s,
        "conversations_per_s": 1000 / learn_s,
        "created": 203,
        "superseded": 113,
        "expected_memories": 996,
        "questions_asked": 40,
        "rss_mb": {"growth_peak": 63.8, "growth_after": 47.8, "ran_before": []},
        "queued": {"sync_memory": 431},
        "dated": [
            {
                "question": "Where did I live in 2024?",
                "expects": "Chengdu",
                "passed": passed,
                "handed": ["under 20 euros"],
            }
        ],
    }


def test_the_table_marks_a_missed_goal_and_a_failed_question():
    result = {
        "goals": GOALS,
        "formats": {"chatgpt": _format("chatgpt.zip", 100.7, True), "claude": _format("claude.zip", 301.0, False)},
        "scripted": {
            "file": "chatgpt.zip",
            "conversations": 100,
            "user_turns": 973,
            "model_calls": 271,
            "calls_by_task": {"extract": 142, "decide": 129},
            "calls_per_5_user_turns": 1.393,
            "extract_calls_per_5_user_turns": 0.73,
            "learn_s": 15.0,
        },
    }

    table = ingest_history_table(result)

    assert "| learn, no model, s | 100.7 | 301.0 **missed** | ≤ 300 |" in table
    assert "| Where did I live in 2024? | Chengdu | pass | **fail**: under 20 euros |" in table
    assert "1.393 **missed** per 5 user turns" in table
    assert "scripted model 1.39 calls per 5 user turns" in _ingest_history_headline(result)


def _phase(search_p95: float, ratio: float | None, learner: dict | None = None) -> dict:
    latency = {"p50": 20.0, "p95": search_p95, "mean": 25.0, "n": 200}
    phase = {"latency_ms": {"POST /api/memories/search": latency, "GET /api/memories": latency}, "errors": {}}
    phase["p95_ratio"] = {"POST /api/memories/search": ratio or 1.0, "GET /api/memories": ratio or 1.0}
    return {**phase, "learner": learner} if learner else phase


def test_the_table_shows_the_api_alone_and_while_an_import_learns():
    result = {
        "goals": GOALS,
        "formats": {"chatgpt": _format("chatgpt.zip", 60.0, True)},
        "responsiveness": {
            "searched_memories": 203,
            "pause_s": [0.05, 0.15],
            "phases": {
                "alone": _phase(40.0, None),
                "import": _phase(120.0, 3.0, {"niced": False, "learn_s": 70.2, "cpu_s": 50.1}),
                "import_niced": {
                    **_phase(60.0, 1.5, {"niced": True, "learn_s": 80.0, "cpu_s": 49.9}),
                    "errors": {"GET /api/memories": 2},
                },
            },
        },
    }

    table = ingest_history_api_table(result)

    assert "as the user of the chatgpt.zip import (203 memories, earlier versions included)" in table
    assert "| nothing else of the bench's running | 20.0 / 40.0 (200) | 20.0 / 40.0 (200) | – | – |" in table
    assert (
        "| an import learning in another process | 20.0 / 120.0 (200) | 20.0 / 120.0 (200) | ×3.00 / ×3.00 |" in table
    )
    assert "| 80.0 s (49.9 s) |" in table
    assert "**Failed requests**: 2 the same, that process under `nice -n 19`" in table
    assert _ingest_history_api_headline(result).startswith(
        "POST /api/memories/search p95 40 ms alone, 120 ms (×3.00) while an import learns, 60 ms (×1.50) niced; "
    )
