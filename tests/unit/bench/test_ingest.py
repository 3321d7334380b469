"""What the LoCoMo ingest keeps as each turn's context (no database needed)."""

from __future__ import annotations

from bench.dataset import parse_sample
from bench.ingest import turn_contexts
from tests.unit.bench.test_dataset import SAMPLE


def test_each_turn_keeps_the_turn_before_it_in_the_same_session():
    sample = parse_sample(SAMPLE)
    assert turn_contexts(sample) == ["", "Ann: I adopted a puppy.", ""]  # a new session starts afresh


def test_no_context_when_asked_for_none():
    assert turn_contexts(parse_sample(SAMPLE), "none") == ["", "", ""]
