"""bench.graph_cost's counting: graphiti's model calls grouped by what they are for, per memory, and the
operator's estimate built from them (a named scenario: two memories, one that resolves two facts)."""

from __future__ import annotations

import threading

from bench.graph_cost_metrics import Assumptions, CallLedger, MemoryCost, estimate, rounds, summarise


def graphiti_request(schema: str, prompt: str) -> dict:
    return {
        "messages": [{"role": "system", "content": "sys"}, {"role": "user", "content": prompt}],
        "response_format": {"type": "json_schema", "json_schema": {"name": schema, "schema": {}}},
    }


def words(text: str) -> int:
    return len(text.split())


def sync_of(ledger: CallLedger, *schemas: str) -> tuple:
    mark = ledger.mark()
    for schema in schemas:
        ledger.record(schema, graphiti_request(schema, "User: I moved to Lisbon"), '{"ok": true}')
    return tuple(ledger.since(mark))


def test_it_groups_the_calls_by_purpose_and_counts_them_per_memory():
    ledger = CallLedger(words)
    first = sync_of(ledger, "ExtractedEntities", "ExtractedEdges")
    second = sync_of(ledger, "ExtractedEntities", "NodeResolutions", "ExtractedEdges", "EdgeDuplicate", "EdgeDuplicate")
    summary = summarise(
        [
            MemoryCost("en", 0.2, first, embed_calls=2, embedded_texts=3),
            MemoryCost("zh", 0.4, second, embed_calls=4, embedded_texts=5),
        ]
    )

    assert summary["memories"] == 2
    assert summary["model_calls_per_memory"] == {"mean": 3.5, "min": 2, "max": 5}
    assert list(summary["by_purpose"]) == ["extract entities", "extract facts", "dedupe entities", "resolve facts"]
    # 10 words in: the two messages (6) and the schema structured output sends (4)
    assert summary["by_purpose"]["resolve facts"] == {
        "calls_per_memory": 1.0,
        "memories_calling": 1,
        "prompt_tokens_per_call": 10.0,
        "completion_tokens_per_call": 2.0,
    }
    assert summary["model_rounds_per_memory"] == 3.0  # 2, then 4: the two fact resolutions run together
    assert summary["embedding_calls_per_memory"] == 3.0 and summary["embedded_texts_per_memory"] == 4.0
    assert summary["seconds_per_memory"]["mean"] == 0.3 and summary["memories_per_s"] == 3.3


def test_it_counts_the_schema_a_provider_bills_as_input():
    ledger = CallLedger(words)
    request = graphiti_request("ExtractedEntities", "User: I moved to Lisbon")
    ledger.record("ExtractedEntities", request, '{"extracted_entities": []}')
    plain = dict(request, response_format=None)
    ledger.record("", plain, "hello there")
    with_schema, without = ledger.calls
    assert with_schema.prompt_tokens > without.prompt_tokens  # the schema's words count as input
    assert without.purpose == "unstructured" and without.completion_tokens == 2


def test_the_rules_path_costs_no_model_call_and_no_money():
    summary = summarise([MemoryCost("en", 0.01), MemoryCost("zh", 0.03)])
    assert summary["model_calls_per_memory"]["mean"] == 0 and summary["by_purpose"] == {}
    assumed = estimate(summary, Assumptions())
    assert assumed["usd_per_1000_memories"] == 0 and assumed["seconds_per_memory"] == [0.02, 0.02]


def test_the_estimate_spans_parallel_rounds_at_the_fast_latency_to_every_call_at_the_slow_one():
    summary = {
        "seconds_per_memory": {"mean": 0.1},
        "model_rounds_per_memory": 4.0,
        "model_calls_per_memory": {"mean": 5.0},
        "prompt_tokens_per_memory": 8000,
        "completion_tokens_per_memory": 500,
    }
    assumed = estimate(summary, Assumptions(latency_s=(0.5, 2.0), usd_per_million_in=0.15, usd_per_million_out=0.6))
    assert assumed["seconds_per_memory"] == [2.1, 10.1]
    assert assumed["memories_per_hour_one_worker"] == [356, 1714]
    assert assumed["usd_per_1000_memories"] == 1.5  # (8000 x 0.15 + 500 x 0.6) / 1e6 x 1000


def test_it_records_calls_answered_on_several_threads():
    ledger = CallLedger(words)
    threads = [threading.Thread(target=sync_of, args=(ledger, "EdgeDuplicate")) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(ledger.calls) == 20 and rounds([c.purpose for c in ledger.calls]) == 1
