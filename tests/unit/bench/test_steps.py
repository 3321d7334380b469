"""bench.all's steps and the benchmark pages come from one list, so the runner and the pages cannot drift."""

from __future__ import annotations

import importlib
import json
import os
import sys
from pathlib import Path

import pytest

from bench import all as bench_all
from bench import docs_page
from bench.steps import STEPS, Step, Tier, expected_minutes, steps_for


def page_blocks() -> dict[str, str]:
    return {name: body for text in docs_page.read_pages().values() for name, body in docs_page.blocks_in(text).items()}


def test_it_shows_every_table_under_the_commands_that_make_it():
    blocks = page_blocks()
    for block in docs_page.BLOCKS:
        commands = [step.command for step in STEPS if step.name in block.steps]
        assert blocks[block.name].startswith("```sh\n" + "\n".join(commands) + "\n```\n"), block.name


def test_it_lists_the_tiers_as_the_runner_runs_them():
    tiers = page_blocks()["tiers"]
    assert tiers == docs_page.render_tiers()
    for tier in Tier:
        names = [step.name for step in steps_for(tier) if step.tier is tier]
        assert f"python -m bench.all --{tier.value}   # about {expected_minutes(tier):.0f} min" in tiers
        assert ", ".join(names) in tiers
    for step in STEPS:
        assert f"| {step.name} | {step.tier.value} | `{step.command}` |" in tiers


def test_it_finds_the_pages_as_the_results_render_them():
    pages = docs_page.read_pages()
    assert docs_page.render_pages(pages) == pages, "run `python -m bench.all --docs-only`"


def test_the_summary_gives_every_step_its_figures_day_and_page():
    summary = docs_page.blocks_in(docs_page.PAGE.read_text())["summary"]
    for step in STEPS:
        row = next(line for line in summary.splitlines() if line.startswith(f"| {step.name} |"))
        assert "](benchmarks/" in row and f"`{step.command}`" in row
        assert "older shape" not in row, f"bench/tables.py has no headline for {step.name}'s result"


def test_the_summary_page_stays_short():
    assert docs_page.PAGE.read_text().count("\n") <= 500


def test_it_shows_every_step_in_exactly_one_block():
    shown = [name for block in docs_page.BLOCKS for name in block.steps]
    assert sorted(shown) == sorted(step.name for step in STEPS)
    assert len({step.name for step in STEPS}) == len(STEPS)


def test_it_runs_the_fast_tier_on_the_default_install_and_all_of_it_in_full():
    fast, full = steps_for(Tier.FAST), steps_for(Tier.FULL)
    assert fast == [step for step in full if step.tier is Tier.FAST]
    assert [step.needs for step in fast] == [()] * len(fast)
    assert expected_minutes(Tier.FAST) < 20


@pytest.mark.parametrize("step", STEPS, ids=lambda step: step.name)
def test_it_gives_each_bench_a_command_it_accepts(step: Step):
    args = importlib.import_module(step.module).parse_args(step.argv)
    assert args.json == Path(step.result)


def test_it_skips_a_step_whose_extras_are_missing(monkeypatch, capsys):
    monkeypatch.setattr(bench_all.subprocess, "Popen", lambda *a, **k: pytest.fail("a skipped step ran"))
    step = Step("peer", "bench.locomo", ("--peers", "mem0"), Tier.FULL, needs=("json", "no_such_module_here"))

    outcome = bench_all.run_step(step, 1, 1, bench_all.Console())

    assert outcome["status"] == "skipped" and outcome["missing"] == ["no_such_module_here"]
    assert "skipped, needs no_such_module_here (install: pip install" in capsys.readouterr().out


def test_it_rewrites_only_between_the_markers(tmp_path):
    names = ["tiers", "summary", *(block.name for block in docs_page.BLOCKS)]
    page = "# Title\n\nprose before\n\n" + "\n".join(
        f"{docs_page.BEGIN.format(name=name)}\nstale\n{docs_page.END.format(name=name)}\nprose after {name}\n"
        for name in names
    )

    rendered = docs_page.render_page(page, root=tmp_path)

    assert "stale" not in rendered and "prose before" in rendered and "prose after load" in rendered
    assert "- `bench/results/chat.json`: not run yet; `python -m bench.all --fast` writes it." in rendered
    assert "- `bench/results/scale.json`: not run yet; `python -m bench.all --full` writes it." in rendered
    assert docs_page.render_page(rendered, root=tmp_path) == rendered


def test_it_refuses_a_page_that_lacks_a_block():
    with pytest.raises(ValueError, match="lack the generated blocks"):
        docs_page.render_page("# Benchmarks\n")


def test_it_says_when_a_result_came_from_another_command(tmp_path):
    step = STEPS[0]
    result = {
        "provenance": {
            "commit": "0123456789abcdef",
            "dirty": True,
            "command": "python -m bench.x --other",
            "python": "3.11.7",
            "cpu_count": 2,
            "cpu_model": "AMD EPYC",
            "platform": "Linux",
            "started": "2026-11-25T09:00:00+00:00",
            "date": "2026-11-25T09:01:30+00:00",
            "loadavg_at_start": [1.5, 1.2, 1.0],
            "loadavg_at_end": [2.0, 1.4, 1.1],
        }
    }

    line = docs_page.made_by(step, result)

    assert "commit `0123456789` with uncommitted changes, 2026-11-25 09:01 UTC, took 90 s" in line
    assert "load average 1.5 / 1.2 / 1 at the start, 2 / 1.4 / 1.1 at the end" in line
    assert "**Made by another command:** `python -m bench.x --other`" in line
    assert "another command" not in docs_page.made_by(
        step, json.loads(json.dumps({"provenance": {**result["provenance"], "command": step.command}}))
    )


def test_it_keeps_what_a_step_prints_in_the_tier_log(tmp_path, capsys):
    with (tmp_path / "all_fast.log").open("w") as log:
        code = bench_all.Console(log).run(
            [sys.executable, "-c", "import sys; print('步骤 1'); sys.exit(3)"], dict(os.environ)
        )

    assert code == 3
    assert (tmp_path / "all_fast.log").read_text() == "步骤 1\n" == capsys.readouterr().out


def test_it_stops_before_running_when_the_locomo_data_is_missing(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(bench_all.runtime, "LOCOMO_DATA", tmp_path / "locomo_dev.json")
    monkeypatch.setattr(bench_all.subprocess, "Popen", lambda *a, **k: pytest.fail("a step ran"))

    assert bench_all.main(["--fast"]) == 2
    assert "clone that sits beside ../shared" in capsys.readouterr().err
    assert [step.name for step in STEPS if step.reads_locomo] == [
        "extraction",
        "chat",
        "locomo",
        "locomo_peers",
        "embedders",
    ]
