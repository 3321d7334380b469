"""The layers point one way and no package holds an import cycle (docs/architecture.md, "Layers, one way").

`lint-imports` checks the import-linter contracts in pyproject.toml; its report is the failure message.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_import_contracts_hold():
    lint_imports = Path(sys.executable).with_name("lint-imports")
    # --no-cache: import-linter would otherwise write its cache into the work tree.
    result = subprocess.run([str(lint_imports), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=120)

    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: 2 kept, 0 broken." in result.stdout


def _layered_modules() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (layers,) = [c["layers"] for c in config["contracts"] if c["type"] == "layers"]
    return [name.strip() for layer in layers for name in layer.split(":")]


def _modules_of(package: str) -> list[str]:
    """Every module and package under `package`, migrations aside, named as Python imports them."""
    found = []
    for path in sorted((ROOT / package).rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if "migrations" in parts:
            continue
        found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


def test_every_module_sits_in_a_layer():
    """A new module must be placed in the layers contract: otherwise import-linter checks nothing about it.
    The root packages themselves are containers (memoryapp/__init__.py only loads the Celery app)."""
    roots = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["root_packages"]
    layered = _layered_modules()
    unplaced = [
        module
        for root in roots
        for module in _modules_of(root)
        if module not in roots and not any(module == name or module.startswith(name + ".") for name in layered)
    ]

    assert unplaced == [], f"modules in no layer of pyproject's [tool.importlinter] contract: {unplaced}"


def test_the_contract_ignores_no_import():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]

    assert all("ignore_imports" not in contract for contract in config["contracts"])
