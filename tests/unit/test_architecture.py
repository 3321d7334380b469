"""The layers point one way and no package holds an import cycle (docs/architecture.md, "Layers, one way").

`lint-imports` checks the import-linter contracts in pyproject.toml; its report is the failure message.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_import_contracts_hold():
    lint_imports = Path(sys.executable).with_name("lint-imports")
    # --no-cache: import-linter would otherwise write its cache into the work tree.
    result = subprocess.run([str(lint_imports), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=120)

    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: 2 kept, 0 broken." in result.stdout
