"""The memory graph page at 1,000 memories in Chromium: time to every node drawn, "as of" slider steps, axe.

    python -m bench.graph_page [--memories 1000] [--loads 5] [--steps 60] [--json OUT]

Starts Daphne as `./run` does (the bench's embedded Postgres and Redis under var/bench, GRAPH_BACKEND=off
as on the default install), gives one user `--memories` memories over a year in every kind (about one in
six replaced by a later version, one in five from one of 30 chats, names shared across them), signs in and
opens /settings/memories/graph `--loads` times in a fresh page (after one untimed load: the server's
first request loads jieba's dictionary), at 1280x800 and at 390x844. Drawn: the
page's `data-drawn` (performance.now() at cytoscape's first frame after it added every node, so counted
from the start of navigation), checked against the number of nodes the JSON holds. Step: from setting the
slider and its input event to the page's `graph:stepped` (cytoscape's next frame), half the steps by one
change (the arrow keys), half jumps across the range. Then axe-core's WCAG 2.x A/AA rules on the drawn
page. Goals: drawn <= 1 s, step <= 200 ms, 0 violations.
"""

from __future__ import annotations

import argparse
import logging
import random
from datetime import timedelta
from pathlib import Path

from . import runtime
from .metrics import latency_summary

RESULTS = runtime.REPO / "bench" / "results"
VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
PEOPLE = ["Anna", "Leo", "Mei", "Jonas", "Priya", "Tomás", "王磊", "小雨"]
PLACES = ["Leipzig", "Lisbon", "Hamburg", "Kyoto", "杭州", "上海", "Berlin", "Porto"]
TOOLS = ["Python", "Django", "Postgres", "Neovim", "React", "Docker", "Figma", "Excel"]
KINDS = ["fact", "preference", "goal", "lesson", "context", "episode"]

# Where a load's time went, from the navigation and resource timings (ms from navigation start).
PARTS = """() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const at = (part) => performance.getEntriesByType('resource').find((r) => r.name.includes(part));
  const data = at('/graph/data'), lib = at('cytoscape.min.js');
  return { html: nav.responseEnd, dom: nav.domContentLoadedEventEnd, library: lib ? lib.responseEnd : -1,
           library_start: lib ? lib.startTime : -1, library_first_byte: lib ? lib.responseStart : -1,
           data_start: data ? data.startTime : -1, data_end: data ? data.responseEnd : -1,
           data_server: data ? data.responseStart - data.requestStart : -1,
           data_requests: performance.getEntriesByType('resource').filter((r) => r.name.includes('/graph/data')).length,
           drawn: Number(document.getElementById('graph-root').dataset.drawn),
           ...Object.fromEntries(performance.getEntriesByType('measure').filter((m) => m.name.startsWith('graph:'))
             .map((m) => [m.name.slice(6), m.duration])) };
}"""

STEP = """async ([value]) => {
  const root = document.getElementById('graph-root'), slider = document.getElementById('graph-asof');
  const started = performance.now();
  const done = new Promise((resolve) => root.addEventListener('graph:stepped', resolve, { once: true }));
  slider.value = String(value);
  slider.dispatchEvent(new Event('input', { bubbles: true }));  // the page's filters run here, synchronously
  const filtered = performance.now() - started;
  await done;
  return [performance.now() - started, filtered];
}"""


def summary(values: list[float]) -> dict[str, float]:
    return {**latency_summary(values), "max": round(max(values), 2)}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.graph_page", description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=1000, help="memories of the one user drawn")
    parser.add_argument("--loads", type=int, default=5, help="page loads timed per viewport")
    parser.add_argument("--steps", type=int, default=60, help="slider steps timed per viewport")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", type=Path, default=RESULTS / "graph_page.json")
    return parser.parse_args(argv)


def sentence(i: int, rng: random.Random) -> str:
    person, place, tool = rng.choice(PEOPLE), rng.choice(PLACES), rng.choice(TOOLS)
    if i % 3 == 0:
        return f"{person} 和我在{place}一起用 {tool} 做项目（第 {i} 条）"
    return rng.choice(
        [
            f"Meets {person} in {place} every other week (note {i})",
            f"Uses {tool} for the side project with {person} (note {i})",
            f"Wants to spend a month in {place} learning {tool} (note {i})",
        ]
    )


def make_user(count: int, seed: int):
    """One user with `count` memories over the past year, written as rows (the page reads only rows)."""
    from django.contrib.auth import get_user_model  # noqa: F401  (runtime.setup_django ran)
    from django.utils import timezone

    from conversations.models import Conversation
    from memoryapp.engine.text import content_key
    from memoryapp.models import Memory

    rng = random.Random(seed)
    user = runtime.fresh_user("graph-bench")
    chats = [
        Conversation.objects.create(user=user, title=f"Chat {i}: plans for {PLACES[i % len(PLACES)]}")
        for i in range(30)
    ]
    now = timezone.now()
    rows = []
    for i in range(count):
        text = sentence(i, rng)
        rows.append(
            Memory(
                user=user,
                content=text,
                content_key=content_key(text),
                kind=KINDS[i % len(KINDS)],
                valid_from=now - timedelta(days=365 * (count - i) / count),
                source_conversation=chats[i % 30] if i % 5 == 0 else None,
            )
        )
    Memory.objects.bulk_create(rows)
    rows = list(Memory.objects.filter(user=user).order_by("valid_from"))
    links = []
    for older, newer in zip(rows, rows[1:]):  # about one in six replaced by the next memory
        if rng.random() < 1 / 6 and newer.pk not in {n for n, _ in links}:
            links.append((newer.pk, older.pk))
            older.valid_until = newer.valid_from
    Memory.objects.bulk_update([r for r in rows if r.valid_until], ["valid_until"])
    through = Memory.supersedes.through
    through.objects.bulk_create([through(from_memory_id=n, to_memory_id=o) for n, o in links])
    return user, len(links)


def session_cookie(user) -> str:
    from django.test import Client

    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


def measure(base: str, cookie: str, args: argparse.Namespace) -> dict:
    from playwright.sync_api import sync_playwright

    axe = runtime.REPO / "node_modules" / "axe-core" / "axe.min.js"
    rng = random.Random(args.seed)
    found: dict = {}
    with sync_playwright() as playwright:
        # Debian's Chromium where it is installed (as the browser tests use), else Playwright's own.
        chromium = "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        try:
            for name, viewport in VIEWPORTS.items():
                context = browser.new_context(viewport=viewport)
                context.add_cookies([{"name": "sessionid", "value": cookie, "url": base}])
                drawn, nodes, parts = [], 0, []
                for load in range(-1, args.loads):  # one untimed load first: the server's first request
                    page = context.new_page()
                    page.goto(f"{base}/settings/memories/graph")
                    page.wait_for_selector("#graph-root[data-drawn]", state="attached", timeout=30_000)
                    if load >= 0:
                        drawn.append(float(page.get_attribute("#graph-root", "data-drawn")))
                        parts.append(page.evaluate(PARTS))
                    nodes = page.evaluate("document.getElementById('graph-root').graph.nodes().length")
                    page.close()
                page = context.new_page()
                # axe in this page only, not in the timed loads: its 500 KB would be parsed before every page's
                # own scripts, time a visitor never spends. An init script, not a <script> tag, which the CSP refuses.
                page.add_init_script(path=axe)
                page.goto(f"{base}/settings/memories/graph")
                page.wait_for_selector("#graph-root[data-drawn]", state="attached", timeout=30_000)
                top = int(page.get_attribute("#graph-asof", "max"))
                steps, filtering, value = [], [], top
                for i in range(args.steps):
                    value = max(0, value - 1) if i % 2 == 0 else rng.randrange(0, top + 1)
                    total, filtered = page.evaluate(STEP, [value])
                    steps.append(total)
                    filtering.append(filtered)
                page.evaluate(STEP, [top])
                violations = page.evaluate(
                    """async (tags) => (await axe.run(document,
                    { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] })).violations
                    .map((v) => `${v.id}: ${v.nodes.length} nodes`)""",
                    AXE_TAGS,
                )
                memories = page.evaluate("document.querySelectorAll('#graph-list > li').length")
                context.close()
                found[name] = {
                    "drawn_ms": summary(drawn),
                    "drawn_ms_each": [round(d) for d in drawn],
                    "parts_ms_median": {k: round(sorted(p[k] for p in parts)[len(parts) // 2]) for k in parts[0]},
                    "step_ms": summary(steps),
                    "step_filters_ms": summary(filtering),
                    "nodes_drawn": nodes,
                    "memories_listed": memories,
                    "slider_positions": top + 1,
                    "axe_violations": violations,
                }
        finally:
            browser.close()
    return found


def run(args: argparse.Namespace) -> dict:
    runtime.setup_django()
    from bench.load import app_env
    from tests.support.processes import start_daphne, stop_process

    user, replaced = make_user(args.memories, args.seed)
    cookie = session_cookie(user)
    logs = runtime.BENCH_VAR_DIR / "graph_page"
    logs.mkdir(parents=True, exist_ok=True)
    daphne, base = start_daphne(app_env(None), logs / "daphne.log")
    try:
        found = measure(base, cookie, args)
    finally:
        stop_process(daphne)
    return {
        "config": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "replaced": replaced,
        "viewports": found,
    }


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    args = parse_args(argv)
    result = run(args)
    runtime.write_result(args.json, result, "bench.graph_page", argv)
    print(f"{args.memories} memories ({result['replaced']} replaced):")
    for name, got in result["viewports"].items():
        drawn, step = got["drawn_ms"], got["step_ms"]
        print(
            f"  {name:8} drawn p50 {drawn['p50']:6.0f} ms max {drawn['max']:6.0f} ms (goal 1000) | "
            f"step p50 {step['p50']:5.1f} ms p95 {step['p95']:5.1f} ms max {step['max']:5.1f} ms (goal 200; "
            f"filters p95 {got['step_filters_ms']['p95']:.1f} ms) | "
            f"parts {got['parts_ms_median']} | {got['nodes_drawn']} nodes, {got['memories_listed']} listed | axe: {got['axe_violations'] or 0}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
