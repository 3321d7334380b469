"""Re-run the benchmarks and regenerate the benchmark pages' tables from their results (docs/benchmarks.md
and docs/benchmarks/).

    python -m bench.all --fast | --full [--only NAME ...]
    python -m bench.all --docs-only      # rewrite the docs' tables from the results already there
    python -m bench.all --list

--fast runs the quality tables and the small latencies; --full adds scale at 10k and 100k, the load
test and LoCoMo with the BM25 and mem0 peers (bench/steps.py lists them). Each step runs as its own
process with the command the docs show, writing bench/results/<name>.json; a step whose bench extras are
missing is skipped with a line saying what to install. Then the docs' generated blocks are rewritten
(bench/docs_page.py) and the plots of the steps that ran are redrawn where matplotlib is installed.
Run it from a clone that sits beside `../shared` (the LoCoMo data, read in place).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from typing import TextIO

from . import docs_page, runtime
from .steps import STEPS, Step, Tier, expected_minutes, steps_for


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.all", description=__doc__.split("\n\n")[0])
    tier = parser.add_mutually_exclusive_group(required=True)
    tier.add_argument(
        "--fast",
        dest="tier",
        action="store_const",
        const=Tier.FAST,
        help=f"quality tables and small latencies (about {expected_minutes(Tier.FAST):.0f} min)",
    )
    tier.add_argument(
        "--full",
        dest="tier",
        action="store_const",
        const=Tier.FULL,
        help=f"all of --fast, scale, load and the mem0 peer (about {expected_minutes(Tier.FULL):.0f} min)",
    )
    tier.add_argument("--docs-only", action="store_true", help="run nothing: regenerate the docs from bench/results")
    tier.add_argument("--list", action="store_true", help="print every step's command and tier")
    parser.add_argument(
        "--only",
        nargs="+",
        metavar="STEP",
        choices=[step.name for step in STEPS],
        help="of the tier's steps, only these",
    )
    return parser.parse_args(argv)


def _elapsed(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


def missing_data(steps: list[Step]) -> str | None:
    """LoCoMo data is read in place from ../shared; without it bench.locomo and bench.chat cannot run."""
    if any(step.reads_locomo for step in steps) and not runtime.LOCOMO_DATA.exists():
        return (
            f"LoCoMo data not found at {runtime.LOCOMO_DATA}: run from a clone that sits beside ../shared "
            "(../shared/bench/locomo/locomo_dev.json)"
        )
    return None


class Console:
    """What the run prints, its steps' output included, also kept in a log file when given one."""

    def __init__(self, log: TextIO | None = None):
        self.log = log

    def say(self, text: str) -> None:
        self._write(text + "\n")

    def _write(self, text: str) -> None:
        sys.stdout.write(text)
        sys.stdout.flush()
        if self.log:
            self.log.write(text)
            self.log.flush()

    def run(self, command: list[str], env: dict[str, str]) -> int:
        with subprocess.Popen(
            command,
            cwd=runtime.REPO,
            env={**env, "PYTHONUNBUFFERED": "1"},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        ) as process:
            for line in process.stdout:
                self._write(line)
        return process.returncode


def run_step(step: Step, index: int, total: int, console: Console) -> dict:
    prefix = f"[{index}/{total}] {step.name}"
    missing = step.missing()
    if missing:
        console.say(f"{prefix}: skipped, needs {', '.join(missing)} (install: {step.install})")
        return {"name": step.name, "command": step.command, "status": "skipped", "missing": missing}
    console.say(f"{prefix}: {step.command}")
    # One hash seed for every step: set and dict order of strings then repeats from run to run.
    env = {**os.environ, "PYTHONHASHSEED": os.environ.get("PYTHONHASHSEED", "0")}
    started = time.perf_counter()
    code = console.run([sys.executable, "-m", step.module, *step.argv], env)
    seconds = time.perf_counter() - started
    status = "done" if code == 0 else f"failed (exit {code})"
    console.say(f"{prefix}: {status} in {_elapsed(seconds)}")
    return {"name": step.name, "command": step.command, "status": status, "seconds": round(seconds, 1)}


def redraw_plots(ran: set[str], console: Console) -> None:
    from .plots import matplotlib_missing

    due = [plot for plot in docs_page.PLOTS if set(plot.steps) <= ran]
    if due and matplotlib_missing():
        console.say(f"plots not redrawn ({', '.join(p.path for p in due)}): matplotlib is in the bench extras")
        return
    for plot in due:
        plot.draw(runtime.REPO)
        console.say(f"drew {plot.path}")


def bench_servers_running() -> bool:
    from memoryapp.stack import postgres_running

    return postgres_running(runtime.BENCH_VAR_DIR)


def stop_servers(console: Console) -> None:
    """The steps share the bench's embedded servers under var/bench: stop them when done."""
    env = {**os.environ, "MEMORYAPP_VAR_DIR": str(runtime.BENCH_VAR_DIR), "EMBEDDED_REDIS_PORT": "0"}
    console.run([sys.executable, "manage.py", "stack", "stop"], env)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.list:
        print(docs_page.render_tiers(), end="")
        return 0
    if args.docs_only:
        changed = docs_page.write_pages()
        print(f"the benchmark pages {'regenerated' if changed else 'already match the results'}")
        return 0
    steps = [step for step in steps_for(args.tier) if not args.only or step.name in args.only]
    problem = missing_data(steps)
    if problem:
        print(problem, file=sys.stderr)
        return 2
    if args.only:
        return run_tier(args, steps, Console())
    # A whole tier keeps its console output beside its results (bench/results/all_fast.log).
    with (runtime.REPO / docs_page.tier_record(args.tier)).with_suffix(".log").open("w") as log:
        return run_tier(args, steps, Console(log), argv)


def run_tier(args: argparse.Namespace, steps: list[Step], console: Console, argv: list[str] | None = None) -> int:
    console.say(
        f"python -m bench.all --{args.tier.value}: {len(steps)} steps, about "
        f"{sum(s.minutes for s in steps):g} min on the reference machine (2 shared cores)"
    )
    started, servers_were_running = time.perf_counter(), bench_servers_running()
    outcomes = [run_step(step, i, len(steps), console) for i, step in enumerate(steps, 1)]
    if not servers_were_running:
        stop_servers(console)
    redraw_plots({o["name"] for o in outcomes if o["status"] == "done"}, console)
    seconds = time.perf_counter() - started
    if not args.only:  # the tier's record, which the docs quote: how long the whole tier took
        runtime.write_result(
            runtime.REPO / docs_page.tier_record(args.tier),
            {"tier": args.tier.value, "seconds": round(seconds, 1), "steps": outcomes},
            "bench.all",
            argv,
        )
    changed = docs_page.write_pages()
    console.say(f"the benchmark pages {'regenerated' if changed else 'unchanged'}")
    failed = [o["name"] for o in outcomes if o["status"].startswith("failed")]
    skipped = [o["name"] for o in outcomes if o["status"] == "skipped"]
    console.say(
        f"bench.all --{args.tier.value}: {len(outcomes) - len(failed) - len(skipped)} done, skipped: "
        f"{', '.join(skipped) or 'none'}, failed: {', '.join(failed) or 'none'}; {_elapsed(seconds)}"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
