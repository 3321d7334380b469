"""Every benchmark result says what made it: the code, the command, the machine and how busy it was."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from bench import runtime

FIELDS = {
    "commit",
    "dirty",
    "command",
    "python",
    "python_hash_seed",
    "cpu_count",
    "cpu_model",
    "platform",
    "started",
    "date",
    "loadavg_at_start",
    "loadavg_at_end",
}


def test_it_records_the_code_the_command_and_the_machine():
    made = runtime.provenance("bench.chat", ["--split", "past", "--json", "bench/results/chat_past.json"])

    assert set(made) == FIELDS
    assert made["command"] == "python -m bench.chat --split past --json bench/results/chat_past.json"
    if (runtime.REPO / ".git").exists():  # a clone or a worktree; a tree without git records None
        assert len(made["commit"]) == 40 and isinstance(made["dirty"], bool)
    assert made["cpu_count"] >= 1 and made["cpu_model"] and made["python"].count(".") == 2
    assert datetime.fromisoformat(made["date"]).tzinfo == UTC
    assert datetime.fromisoformat(made["started"]) <= datetime.fromisoformat(made["date"])
    assert len(made["loadavg_at_start"]) == len(made["loadavg_at_end"]) == 3


def test_it_quotes_arguments_as_a_shell_would_read_them():
    assert (
        runtime.command_line("bench.report", ["--chat", "after, USE=a.json"])
        == "python -m bench.report --chat 'after, USE=a.json'"
    )


def test_it_writes_the_provenance_first_and_keeps_the_result(tmp_path):
    path = tmp_path / "deep" / "result.json"

    runtime.write_result(path, {"recall": {"10": 0.669}, "persona": "小美"}, "bench.locomo", ["--json", str(path)])

    written = json.loads(path.read_text())
    assert list(written)[0] == "provenance"
    assert set(written["provenance"]) == FIELDS
    assert written["recall"] == {"10": 0.669}
    assert "小美" in path.read_text()  # readable, not \u-escaped


def test_it_leaves_writing_results_to_runtime():
    """One writer: no benchmark writes its JSON its own way (the docs page and runtime.write_state's bookkeeping
    under var/ are the other files written, both by runtime or docs_page; history_data.py writes the exports
    a benchmark reads, under var/, not results)."""
    bench = Path(runtime.__file__).parent
    writers = [
        path.name
        for path in bench.glob("*.py")
        if path.name not in ("runtime.py", "docs_page.py", "history_data.py") and ".write_text(" in path.read_text()
    ]
    assert writers == []


def test_each_vector_dimension_gets_a_bench_database_of_its_own(monkeypatch):
    monkeypatch.delenv("EMBEDDING_DIM", raising=False)
    monkeypatch.delenv("EMBEDDING_MODEL", raising=False)
    assert runtime.bench_var_dir() == runtime.BENCH_VAR_DIR
    monkeypatch.setenv("EMBEDDING_MODEL", "multilingual-e5-small")
    assert runtime.bench_var_dir() == runtime.REPO / "var" / "bench-384d"
    monkeypatch.setenv("EMBEDDING_DIM", "896")
    assert runtime.bench_var_dir() == runtime.REPO / "var" / "bench-896d"
