"""The tree passes the linter and is formatted as ruff formats it (settings under [tool.ruff] in
pyproject.toml); `./test` fails with ruff's own report, as test_architecture.py does with lint-imports'."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
RUFF = [sys.executable, "-m", "ruff"]


def test_ruff_finds_nothing_to_fix():
    done = subprocess.run([*RUFF, "check", "--output-format", "concise", "."], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_file_is_formatted():
    done = subprocess.run([*RUFF, "format", "--check", "."], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, "run `.venv/bin/ruff format`:\n" + done.stdout + done.stderr
