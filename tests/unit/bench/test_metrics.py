"""Recall@k math and latency summaries with plain lists: "Where does Ann's puppy live?"."""

from __future__ import annotations

import math

import pytest

from bench.calibration import score_distribution
from bench.metrics import RecallTally, latency_summary, percentile, recall_at_k

# Memory 10 stands for two identical turns (bulk_add kept one), 11 and 12 for one turn each.
TURNS_OF = {10: ["D1:1", "D3:4"], 11: ["D1:2"], 12: ["D2:1"]}


def test_it_counts_the_share_of_gold_turns_in_the_top_k():
    assert recall_at_k([11, 12, 10], ["D2:1", "D1:1"], k=2, turns_of=TURNS_OF) == 0.5
    assert recall_at_k([11, 12, 10], ["D2:1", "D1:1"], k=3, turns_of=TURNS_OF) == 1.0


def test_it_credits_a_deduplicated_memory_for_every_turn_it_stands_for():
    assert recall_at_k([10], ["D1:1", "D3:4"], k=1, turns_of=TURNS_OF) == 1.0


def test_it_scores_nothing_retrieved_as_zero():
    assert recall_at_k([], ["D1:1"], k=5, turns_of=TURNS_OF) == 0.0


def test_it_refuses_a_question_without_gold():
    with pytest.raises(ValueError):
        recall_at_k([10], [], k=5, turns_of=TURNS_OF)


def test_it_averages_over_questions_overall_and_per_category():
    tally = RecallTally([1, 2])
    tally.add(4, [12, 10], ["D2:1"], TURNS_OF)  # 1.0 at k=1 and k=2
    tally.add(1, [11, 10], ["D1:1", "D2:1"], TURNS_OF)  # 0 at k=1, 0.5 at k=2
    assert tally.overall() == {"1": 0.5, "2": 0.75}
    assert tally.by_category() == {"1": {"1": 0.0, "2": 0.5, "n": 1}, "4": {"1": 1.0, "2": 1.0, "n": 1}}


def test_it_interpolates_percentiles_like_numpy():
    assert percentile([1, 2, 3, 4], 50) == 2.5
    assert percentile([10], 95) == 10
    assert math.isnan(percentile([], 50))
    assert latency_summary([1.0, 3.0]) == {"p50": 2.0, "p95": 2.9, "mean": 2.0, "n": 2}


def test_it_sweeps_thresholds_over_relevant_and_irrelevant_hits():
    result = score_distribution([(0.7, True), (0.5, True), (0.6, False), (0.3, False)], thresholds=[0.55])
    assert result["threshold_sweep"]["0.55"] == {"relevant_kept": 0.5, "irrelevant_dropped": 0.5, "precision_kept": 0.5}
    assert result["relevant"]["n"] == 2
