"""A migration runs what it ran when it was written: none imports the app's own code.

Live app code in a historical migration changes what the migration does when the code changes (a fresh
database would be migrated by today's function, not the one the migration was written with), or breaks it
when the code moves. Django's `migrations`, `models` and `settings` are not app code: they stay allowed.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
KNOWN = {"memoryapp/migrations", "memoryapp/pipeline/migrations", "conversations/migrations", "tasks/migrations"}


def migration_files() -> list[Path]:
    """Every migration of every app in the repository: the `migrations` packages inside its top-level packages."""
    found = []
    for package in ROOT.iterdir():
        if (package / "__init__.py").exists():
            for init in package.glob("**/migrations/__init__.py"):
                found += [path for path in init.parent.glob("*.py") if path.name != "__init__.py"]
    return sorted(found)


def app_packages(files: list[Path]) -> set[str]:
    """The repository's top-level packages that hold apps: memoryapp, conversations, tasks."""
    return {path.relative_to(ROOT).parts[0] for path in files}


def imports_of_app_code(path: Path, packages: set[str]) -> list[str]:
    """`line: statement` for each import of app code in `path`: by name, relative, or by import_module."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = ["." * node.level + (node.module or "")]
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", None)) in ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            names = [str(node.args[0].value)]
        else:
            continue
        if any(name.startswith(".") or name.split(".")[0] in packages for name in names):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def test_it_reads_every_apps_migrations():
    files = migration_files()
    assert KNOWN <= {str(path.parent.relative_to(ROOT)) for path in files}


def test_no_migration_imports_app_code():
    files = migration_files()
    packages = app_packages(files)
    offenders = {str(path.relative_to(ROOT)): found for path in files if (found := imports_of_app_code(path, packages))}
    assert offenders == {}, "copy what a migration needs into it instead of importing the app's code"
