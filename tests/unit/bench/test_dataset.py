"""Evidence cleaning and sample parsing, on a tiny LoCoMo-shaped fixture (no data file needed)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from bench.dataset import clean_evidence, load, parse_sample, recall_questions

SAMPLE = {
    "sample_id": "conv-x",
    "conversation": {
        "speaker_a": "Ann",
        "speaker_b": "Ben",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a puppy."},
            {"speaker": "Ben", "dia_id": "D1:2", "text": "Look!", "blip_caption": "a photo of a dog on grass"},
        ],
        "session_2_date_time": "9:00 am on 1 June, 2023",
        "session_2": [{"speaker": "Ann", "dia_id": "D2:1", "text": "The puppy is called Rex."}],
        "session_3_date_time": "10:00 am on 2 June, 2023",  # a dangling date, as in conv-26
    },
    "qa": [
        {"question": "What did Ann adopt?", "answer": "a puppy", "evidence": ["D1:1"], "category": 4},
        {"question": "Name?", "answer": 2, "evidence": ["D:2:01", "D1:1; D2:1", "D1:1"], "category": 1},
        {"question": "Would Ann?", "answer": "yes", "evidence": [], "category": 3},
        {"question": "Trick?", "adversarial_answer": "cat", "evidence": ["D1:2"], "category": 5},
    ],
}


def test_it_rebuilds_padded_and_colon_ids():
    assert clean_evidence(["D30:05", "D:11:26"]) == (["D30:5", "D11:26"], [])


def test_it_splits_several_ids_in_one_string():
    assert clean_evidence(["D8:6; D9:17", "D9:1 D4:4"]) == (["D8:6", "D9:17", "D9:1", "D4:4"], [])


def test_it_deduplicates_in_order():
    assert clean_evidence(["D4:5", "D4:5", "D5:5"])[0] == ["D4:5", "D5:5"]


def test_it_drops_fragments_and_unknown_ids():
    ids, dropped = clean_evidence(["D", "D10:19", "D1:18"], known={"D1:18"})
    assert ids == ["D1:18"]
    assert dropped == ["D", "D10:19"]


def test_it_turns_every_turn_into_content_with_caption_and_session_date():
    sample = parse_sample(SAMPLE)
    assert [t.dia_id for t in sample.turns] == ["D1:1", "D1:2", "D2:1"]
    assert sample.turns[1].content == "Ben: Look! [shares an image: a photo of a dog on grass]"
    assert sample.turns[2].when == datetime(2023, 6, 1, 9, 0, tzinfo=UTC)


def test_it_keeps_categories_one_to_four_with_gold_turns():
    questions = recall_questions(parse_sample(SAMPLE))
    assert [(q.category, q.evidence) for q in questions] == [(4, ("D1:1",)), (1, ("D2:1", "D1:1"))]


def test_it_loads_a_file_and_limits_samples(tmp_path):
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps([SAMPLE, {**SAMPLE, "sample_id": "conv-y"}]))
    assert [s.sample_id for s in load(path, limit_samples=1)] == ["conv-x"]
