"""The benchmark pages' generated blocks: each table under the command that made it, what ran, and the
summary of every step's figures on docs/benchmarks.md.

The pages are docs/benchmarks.md (the summary, how to re-run) and one page per area under
docs/benchmarks/. A block sits between `<!-- bench.all: NAME ... -->` and `<!-- /bench.all: NAME -->`,
on whichever page; `python -m bench.all` rewrites what is between from the result JSON (bench/steps.py
says which command writes which file). The prose outside the blocks is left alone. Pure apart from
reading the result files.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from . import plots, tables
from .steps import RESULTS_DIR, STEPS, Step, Tier, expected_minutes, step_named, steps_for

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
PAGE = DOCS / "benchmarks.md"  # the summary
DETAIL = DOCS / "benchmarks"  # a page per area
BEGIN = "<!-- bench.all: {name} (generated: edit bench/steps.py or bench/tables.py, not this block) -->"
END = "<!-- /bench.all: {name} -->"
_BLOCK = re.compile(r"<!-- bench\.all: (?P<name>[\w.]+) .*?-->\n(?P<body>.*?)<!-- /bench\.all: (?P=name) -->", re.S)


@dataclass(frozen=True)
class Block:
    name: str
    steps: tuple[str, ...]  # the steps whose results it shows, in bench/steps.py
    table: Callable[[list[dict]], str]


def _one(render: Callable[[dict], str]) -> Callable[[list[dict]], str]:
    return lambda results: render(results[0])


BLOCKS: tuple[Block, ...] = (
    Block("extraction", ("extraction",), _one(tables.extraction_table)),
    Block("chat", ("chat",), _one(tables.chat_table)),
    Block("chat_model_path", ("chat_model_path",), _one(tables.chat_model_path_table)),
    Block("chat_past", ("chat_past",), _one(tables.chat_shape_table)),
    Block("locomo", ("locomo",), _one(tables.locomo_tables)),
    Block("scale_1k", ("scale_1k",), _one(tables.scale_table)),
    Block("graph_cost", ("graph_cost",), _one(tables.graph_cost_table)),
    Block("secrets", ("secrets",), _one(tables.secrets_table)),
    Block("changes", ("changes",), _one(tables.changes_table)),
    Block("entities", ("entities",), _one(tables.entities_table)),
    Block("ingest_history", ("ingest_history",), _one(tables.ingest_history_table)),
    Block("ingest_history_api", ("ingest_history_api",), _one(tables.ingest_history_api_table)),
    Block("locomo_peers", ("locomo_peers",), _one(tables.locomo_tables)),
    Block("scale", ("scale",), _one(tables.scale_table)),
    Block("load", ("load_offline", "load_scripted", "load_offline_think15"), tables.load_table),
    Block("embedders", ("embedders",), _one(tables.embedders_table)),
)


@dataclass(frozen=True)
class Plot:
    path: str  # under the repository, referenced by the docs
    steps: tuple[str, ...]  # redrawn when these steps ran
    draw_results: Callable[[list[dict], Path], None]

    def draw(self, root: Path = REPO) -> None:
        results = [json.loads((root / step_named(name).result).read_text()) for name in self.steps]
        self.draw_results(results, root / self.path)


PLOTS: tuple[Plot, ...] = (
    Plot("docs/img/locomo_recall.png", ("locomo_peers",), lambda results, path: plots.plot_locomo(results[0], path)),
    Plot("docs/img/scale_latency.png", ("scale",), lambda results, path: plots.plot_scale(results[0]["sizes"], path)),
    Plot("docs/img/load_latency.png", ("load_offline", "load_scripted", "load_offline_think15"), plots.plot_load),
)


def _loads(values) -> str:
    return " / ".join(f"{v:g}" for v in values)


def _took(started: str, ended: str) -> str:
    seconds = (datetime.fromisoformat(ended) - datetime.fromisoformat(started)).total_seconds()
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


def made_by(step: Step, result: dict) -> str:
    """One line: the commit, date and machine of a result, and how busy the machine was."""
    p = result.get("provenance") or {}
    if "backfilled" in p or not p:  # an earlier result: the machine block, and what the lab notes said
        m = result.get("machine", {})
        return (
            f"`{step.result}` is an earlier run, from before results recorded their commit (added in "
            f"`{p.get('committed_in', '?')}`, {p.get('date', 'date unknown')}), made by "
            f"`{p.get('command', 'a command not recorded')}`; {m.get('cpu', 'unknown CPU')}, "
            f"{m.get('cores', '?')} cores, Python {m.get('python', '?')}; load average "
            f"{_loads(m.get('loadavg_at_end', []))} at the end (1, 5, 15 minutes). "
            f"`python -m bench.all` replaces it."
        )
    commit = f"commit `{p['commit'][:10]}`" if p.get("commit") else "an unknown commit"
    if p.get("dirty"):
        commit += " with uncommitted changes"
    line = (
        f"`{step.result}`: {commit}, {p['date'][:16].replace('T', ' ')} UTC, took "
        f"{_took(p['started'], p['date'])}; {p['cpu_model']}, {p['cpu_count']} cores, Python {p['python']}; "
        f"load average {_loads(p['loadavg_at_start'])} at the start, {_loads(p['loadavg_at_end'])} at the end "
        f"(1, 5, 15 minutes: what else ran on the machine)."
    )
    if p.get("command") != step.command:
        line += f" **Made by another command:** `{p.get('command')}`."
    return line


def render_block(block: Block, root: Path = REPO) -> str:
    steps = [step_named(name) for name in block.steps]
    tier = "--full" if any(step.tier is Tier.FULL for step in steps) else "--fast"
    found = [(step, json.loads((root / step.result).read_text())) for step in steps if (root / step.result).exists()]
    lines = ["```sh", *(step.command for step in steps), "```", ""]
    lines += [f"- {made_by(step, result)}" for step, result in found]
    lines += [
        f"- `{step.result}`: not run yet; `python -m bench.all {tier}` writes it."
        for step in steps
        if not (root / step.result).exists()
    ]
    if found:
        lines += ["", block.table([result for _, result in found])]
    return "\n".join(lines) + "\n"


def tier_record(tier: Tier) -> str:
    """What `python -m bench.all --fast|--full` writes about itself: its steps, their outcome, the time."""
    return f"{RESULTS_DIR}/all_{tier.value}.json"


def last_run(tier: Tier, root: Path = REPO) -> str:
    path = root / tier_record(tier)
    if not path.exists():
        return f"- `--{tier.value}`: not run yet with `python -m bench.all`."
    record = json.loads(path.read_text())
    p = record["provenance"]
    outcomes = ", ".join(f"{o['name']} {o['status']}" for o in record["steps"])
    return (
        f"- last `--{tier.value}`: {_took(p['started'], p['date'])} in all, commit `{(p['commit'] or '?')[:10]}`"
        f"{' with uncommitted changes' if p.get('dirty') else ''}, {p['date'][:16].replace('T', ' ')} UTC, "
        f"{p['cpu_model']}, {p['cpu_count']} cores; load average {_loads(p['loadavg_at_end'])} at the end "
        f"({outcomes})."
    )


def render_tiers(root: Path = REPO) -> str:
    """The runner's step list, as the docs show it, and how long each tier took when last run."""
    lines = ["```sh"]
    for tier in Tier:
        steps = [step for step in steps_for(tier) if step.tier is tier]
        added = "" if tier is Tier.FAST else "the fast steps, then "
        lines.append(
            f"python -m bench.all --{tier.value}   # about {expected_minutes(tier):.0f} min: "
            f"{added}{', '.join(step.name for step in steps)}"
        )
    lines += [
        "```",
        "",
        *(last_run(tier, root) for tier in Tier),
        "",
        "| step | tier | command | needs beyond the default install | about |",
        "|---|---|---|---|---|",
    ]
    for step in STEPS:
        needs = ", ".join(step.needs) + f" (`{step.install}`)" if step.needs else "–"
        lines.append(f"| {step.name} | {step.tier.value} | `{step.command}` | {needs} | {step.minutes:g} min |")
    return "\n".join(lines) + "\n"


def blocks_in(text: str) -> dict[str, str]:
    """The generated blocks of a page: name -> what is between its markers."""
    return {m["name"]: m["body"] for m in _BLOCK.finditer(text)}


def render_summary(where: dict[str, str], root: Path = REPO) -> str:
    """One row per step: its headline figures, the commit and day they come from, and the page with the
    rest. `where`: block name -> the page (relative to docs/) that holds it."""
    page_of = {name: where.get(block.name, "") for block in BLOCKS for name in block.steps}
    lines = ["| step | figures | commit, day | command, detail |", "|---|---|---|---|"]
    for step in STEPS:
        path = root / step.result
        if not path.exists():
            figures, when = f"not run yet: `python -m bench.all --{step.tier.value}`", "–"
        else:
            result = json.loads(path.read_text())
            p = result.get("provenance") or {}
            figures = tables.headline(step.name, result)
            day = (p.get("date") or result.get("date") or "")[:10] or "day unknown"
            when = f"`{p['commit'][:7]}`, {day}" if p.get("commit") else f"an earlier run, {day}"
        page = page_of[step.name]
        lines.append(f"| {step.name} | {figures} | {when} | `{step.command}`; [{page}]({page}) |")
    return "\n".join(lines) + "\n"


def render_pages(texts: dict[str, str], root: Path = REPO) -> dict[str, str]:
    """Every page (relative path -> text) with its generated blocks rewritten; a block that no page holds,
    or that no step makes, is an error."""
    where = {name: page for page, text in texts.items() for name in blocks_in(text)}
    bodies = {
        "tiers": render_tiers(root),
        "summary": render_summary(where, root),
        **{block.name: render_block(block, root) for block in BLOCKS},
    }
    missing = sorted(set(bodies) - set(where))
    if missing:
        raise ValueError(
            f"the benchmark pages lack the generated blocks {', '.join(missing)}: add "
            + " ".join(f"{BEGIN.format(name=n)} {END.format(name=n)}" for n in missing)
        )

    def replace(match: re.Match) -> str:
        name = match["name"]
        if name not in bodies:
            raise ValueError(f"a benchmark page has a generated block {name!r} that no step makes")
        return f"{BEGIN.format(name=name)}\n{bodies[name]}{END.format(name=name)}"

    return {page: _BLOCK.sub(replace, text) for page, text in texts.items()}


def render_page(text: str, root: Path = REPO) -> str:
    """One page that holds every block (the tests' shape)."""
    return render_pages({"benchmarks.md": text}, root)["benchmarks.md"]


def read_pages(docs: Path = DOCS) -> dict[str, str]:
    """The summary and the detail pages, by path relative to docs/."""
    paths = [docs / PAGE.name, *sorted((docs / DETAIL.name).glob("*.md"))]
    return {path.relative_to(docs).as_posix(): path.read_text() for path in paths}


def write_pages(docs: Path = DOCS, root: Path = REPO) -> bool:
    """Rewrite the pages' generated blocks; whether anything changed."""
    before = read_pages(docs)
    after = render_pages(before, root)
    for page, text in after.items():
        if text != before[page]:
            (docs / page).write_text(text)
    return after != before
