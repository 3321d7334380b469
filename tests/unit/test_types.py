"""mypy (with django-stubs) finds no type error in the packages [tool.mypy] lists in pyproject.toml;
`./test` fails with mypy's own report."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_mypy_finds_no_type_error():
    done = subprocess.run([sys.executable, "-m", "mypy"], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
