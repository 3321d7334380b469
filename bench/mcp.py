"""MCP search against REST search, same query, same run: is the MCP server a thin edge?

    python -m bench.mcp [--memories 300] [--rounds 300] [--json OUT]

Starts Daphne as `./run` does (on the bench's embedded Postgres and Redis under var/bench; no worker: a
search queues nothing), gives one user `--memories` memories, then for `--rounds` rounds asks the same
query both ways over one keep-alive HTTP client each: `POST /api/memories/search` and an MCP
`tools/call search_memories` (one JSON-RPC POST to /mcp, as any MCP client sends it; the server is
stateless, so there is no session to open first). The two alternate, in turns, so both see the same
load. Every answer is checked to hold the same memories in the same order. The figure is the p50 of each
and their difference (goal: MCP within 5 ms of REST); the SDK's own client is timed too, for what a host
built on it waits (its own parsing and validation included).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import time
from pathlib import Path

import httpx

from . import runtime
from .metrics import latency_summary

RESULTS = runtime.REPO / "bench" / "results"
QUERY = "what do I drink in the morning"
TOPICS = [
    "green tea",
    "coffee",
    "Lisbon",
    "piano",
    "a half marathon",
    "杭州爬山",
    "Python",
    "React",
    "上海",
    "the plants on Fridays",
    "sci-fi books",
    "cycling to work",
]
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18"}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.mcp", description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=300, help="memories of the one user searched")
    parser.add_argument("--rounds", type=int, default=300, help="timed searches each way")
    parser.add_argument("--warmup", type=int, default=20, help="untimed rounds first")
    parser.add_argument("--json", type=Path, default=RESULTS / "mcp_search.json")
    return parser.parse_args(argv)


def make_user(count: int) -> str:
    """One user with `count` memories; returns an API token of theirs."""
    from memoryapp.api.auth import create_token
    from memoryapp.engine.memories.write import add_memory

    user = runtime.fresh_user("mcp-bench")
    for i in range(count):
        add_memory(user, f"Note {i}: I like {TOPICS[i % len(TOPICS)]}, said on day {i}")
    return create_token(user, "bench")[1]


def rest_ids(answer: httpx.Response) -> list[int]:
    answer.raise_for_status()
    return [hit["memory"]["id"] for hit in answer.json()["items"]]


def mcp_ids(answer: httpx.Response) -> list[int]:
    answer.raise_for_status()
    result = answer.json()["result"]
    assert not result.get("isError"), result
    return [hit["memory"]["id"] for hit in json.loads(result["content"][0]["text"])["items"]]


def time_http(base: str, token: str, args: argparse.Namespace) -> dict[str, list[float]]:
    auth = {"Authorization": f"Bearer {token}"}
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "search_memories", "arguments": {"query": QUERY, "limit": 20}},
    }
    timings: dict[str, list[float]] = {"REST": [], "MCP": []}
    with (
        httpx.Client(base_url=base, headers=auth, timeout=30) as rest,
        httpx.Client(base_url=base, headers={**auth, **MCP_HEADERS}, timeout=30) as mcp,
    ):
        ways = {
            "REST": lambda: rest_ids(rest.post("/api/memories/search", json={"query": QUERY, "limit": 20})),
            "MCP": lambda: mcp_ids(mcp.post("/mcp", json=call)),
        }
        for round_ in range(args.warmup + args.rounds):
            order = ("REST", "MCP") if round_ % 2 else ("MCP", "REST")
            answers = {}
            for way in order:
                started = time.perf_counter()
                answers[way] = ways[way]()
                if round_ >= args.warmup:
                    timings[way].append((time.perf_counter() - started) * 1000)
            assert answers["REST"] == answers["MCP"] and answers["REST"], answers  # the same memories, same order
    return timings


def time_sdk_client(base: str, token: str, rounds: int) -> list[float]:
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async def main() -> list[float]:
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
        async with Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client:
            timings = []
            for _ in range(rounds):
                started = time.perf_counter()
                result = await client.call_tool("search_memories", {"query": QUERY, "limit": 20})
                assert not result.is_error
                timings.append((time.perf_counter() - started) * 1000)
            return timings

    return asyncio.run(main())


def run(args: argparse.Namespace) -> dict:
    runtime.setup_django()
    from bench.load import app_env
    from tests.support.processes import start_daphne, stop_process

    token = make_user(args.memories)
    logs = runtime.BENCH_VAR_DIR / "mcp"
    logs.mkdir(parents=True, exist_ok=True)
    daphne, base = start_daphne(app_env(None), logs / "daphne.log")
    try:
        timings = time_http(base, token, args)
        timings["MCP (SDK client)"] = time_sdk_client(base, token, args.rounds)
    finally:
        stop_process(daphne)
    summary = {way: latency_summary(values) for way, values in timings.items()}
    return {
        "config": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "query": QUERY,
        "latency_ms": summary,
        "mcp_minus_rest_p50_ms": round(summary["MCP"]["p50"] - summary["REST"]["p50"], 2),
    }


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    for noisy in ("httpx", "httpx2"):
        logging.getLogger(noisy).setLevel(logging.WARNING)  # one line per request would drown the summary
    args = parse_args(argv)
    result = run(args)
    runtime.write_result(args.json, result, "bench.mcp", argv)
    for way, summary in result["latency_ms"].items():
        print(f"  {way:18} p50 {summary['p50']:7.2f} ms  p95 {summary['p95']:7.2f} ms  n {summary['n']}")
    print(f"MCP - REST at p50: {result['mcp_minus_rest_p50_ms']:+.2f} ms (goal: within 5 ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
