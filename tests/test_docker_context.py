"""The production image, as far as it can be checked without a Docker engine: what the build context holds
(.dockerignore, read with Docker's own matching rules) and the Dockerfile's npm stage, rehearsed in a
folder holding only what that stage copies."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path, PurePosixPath

import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parents[1]


# --- .dockerignore, matched as Docker does (moby/patternmatcher) ---------------------------------


def _regex(pattern: str) -> re.Pattern[str]:
    """Go's filepath.Match syntax plus **: `*` and `?` stop at `/`, `**/` spans any number of folders."""
    out, i = "", 0
    while i < len(pattern):
        ch = pattern[i]
        if pattern.startswith("**", i):
            i += 2
            if pattern.startswith("/", i):
                i += 1
            out += ".*" if i == len(pattern) else "(.*/)?"
            continue
        if ch == "*":
            out += "[^/]*"
        elif ch == "?":
            out += "[^/]"
        elif ch == "\\" and i + 1 < len(pattern):
            i += 1
            out += re.escape(pattern[i])
        elif ch in "[]":
            out += ch
        else:
            out += re.escape(ch)
        i += 1
    return re.compile(out + r"\Z")


def read_dockerignore(text: str) -> list[tuple[bool, re.Pattern[str]]]:
    """(re-include?, pattern) per line; patterns are cleaned and rooted at the context, as Docker does."""
    rules = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        include = line.startswith("!")
        pattern = str(PurePosixPath(line.lstrip("!").strip())).lstrip("/")
        rules.append((include, _regex(pattern)))
    return rules


def ignored(rules: list[tuple[bool, re.Pattern[str]]], path: str) -> bool:
    """The last rule that matches the path or one of its parent folders decides."""
    parents = PurePosixPath(path).parts[:-1]
    candidates = [path] + ["/".join(parents[:n]) for n in range(1, len(parents) + 1)]
    excluded = False
    for include, pattern in rules:
        if include != excluded:  # an exclusion only matters while not excluded, a `!` only once excluded
            continue
        if any(pattern.match(candidate) for candidate in candidates):
            excluded = not include
    return excluded


@pytest.mark.parametrize(
    ("lines", "path", "expected"),
    [
        ("var", "var/secret_key", True),
        ("var", "tests/var/x", False),  # rooted at the context, unlike .gitignore
        ("__pycache__", "memoryapp/__pycache__/a.pyc", False),
        ("**/__pycache__", "memoryapp/__pycache__/a.pyc", True),
        ("**/__pycache__", "__pycache__/a.pyc", True),
        ("*.pyc", "memoryapp/a.pyc", False),
        ("**/*.py[cod]", "memoryapp/engine/a.pyc", True),
        ("docs\n!docs/api.md", "docs/api.md", False),
        ("docs\n!docs/api.md", "docs/recall.md", True),
        ("/bench/results/", "bench/results/run.json", True),
        ("bench/*/run.json", "bench/results/deep/run.json", False),
    ],
)
def test_it_reads_ignore_patterns_as_docker_does(lines, path, expected):
    assert ignored(read_dockerignore(lines), path) is expected


# Paths a checkout may hold that must never reach an image: the generated secret key, databases, the
# developer's environment, history, local builds.
NEVER_IN_THE_IMAGE = [
    "var/secret_key",
    "var/pgdata/PG_VERSION",
    "var/redis/dump.rdb",
    "var/test/pgdata/postgresql.conf",
    "var/staticfiles/css/app.css",
    ".venv/bin/python",
    ".venv/lib/python3.11/site-packages/django/__init__.py",
    "node_modules/htmx.org/dist/htmx.min.js",
    "node_modules/.package-lock.json",
    ".git/HEAD",
    ".git/config",
    "bench/results/locomo.json",
    "memoryapp/__pycache__/settings.cpython-311.pyc",
    "memoryapp/engine/__pycache__/recall.cpython-311.pyc",
    ".env",
    ".env.production",
    "certs/site.key",
    "memoryapp.egg-info/PKG-INFO",
    ".pytest_cache/v/cache/nodeids",
    "tests/browser/test_chat.py",
]


def test_it_keeps_local_state_secrets_and_environments_out_of_the_build_context():
    rules = read_dockerignore((ROOT / ".dockerignore").read_text())
    let_in = [path for path in NEVER_IN_THE_IMAGE if not ignored(rules, path)]
    assert let_in == [], f".dockerignore lets these into the image: {let_in}"


def test_it_keeps_everything_the_image_runs_in_the_build_context():
    rules = read_dockerignore((ROOT / ".dockerignore").read_text())
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    needed = [
        path
        for path in tracked
        if path.split("/")[0]
        in {
            "memoryapp",
            "conversations",
            "tasks",
            "templates",
            "static",
            "manage.py",
            "pyproject.toml",
            "README.md",
            "package.json",
            "package-lock.json",
        }
    ]
    needed += [source for source in _copied_sources(_dockerfile()) if (ROOT / source).is_file()]
    assert "memoryapp/locale/zh_Hans/LC_MESSAGES/django.mo" in needed
    left_out = [path for path in needed if ignored(rules, path)]
    assert left_out == [], f".dockerignore keeps out what the image needs: {left_out}"


# --- The Dockerfile's npm stage --------------------------------------------------------------------


def _dockerfile() -> str:
    return (ROOT / "Dockerfile").read_text()


def _stage(dockerfile: str, name: str) -> list[str]:
    """The instructions of stage `name` (continuation lines joined, comments dropped)."""
    lines = re.sub(r"\\\n\s*", " ", dockerfile).splitlines()
    instructions = [line.strip() for line in lines if line.strip() and not line.strip().startswith("#")]
    start = next(i for i, line in enumerate(instructions) if re.fullmatch(rf"FROM \S+ AS {name}", line, re.I))
    end = next(
        (i for i in range(start + 1, len(instructions)) if instructions[i].upper().startswith("FROM ")),
        len(instructions),
    )
    return instructions[start + 1 : end]


def _copied_sources(dockerfile: str) -> list[str]:
    """Every source path a COPY takes from the build context (not from another stage)."""
    sources = []
    for line in dockerfile.splitlines():
        words = line.split()
        if words[:1] == ["COPY"] and not any(word.startswith("--from") for word in words):
            sources += [word for word in words[1:-1] if not word.startswith("--")]
    return sources


def test_it_builds_the_vendor_files_from_what_the_npm_stage_copies(tmp_path):
    """Run the static stage's COPY and RUN lines in an empty folder: the files the templates load from
    static/vendor/ come out where STATICFILES_DIRS (and so collectstatic) looks for them."""
    workdir = tmp_path
    for instruction in _stage(_dockerfile(), "static"):
        keyword, _, rest = instruction.partition(" ")
        if keyword == "WORKDIR":
            workdir = tmp_path / rest.strip().lstrip("/")
            workdir.mkdir(parents=True, exist_ok=True)
        elif keyword == "COPY":
            *sources, target = rest.split()
            for source in sources:
                destination = workdir / target / Path(source).name if target.endswith("/") else workdir / target
                destination.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(ROOT / source, destination)
        elif keyword == "RUN":
            result = subprocess.run(["bash", "-c", rest], cwd=workdir, capture_output=True, text=True, timeout=240)
            assert result.returncode == 0, result.stdout + result.stderr

    loaded = set()
    for template in (ROOT / "templates").rglob("*.html"):
        loaded |= set(re.findall(r"""\{% static ['"](vendor/[^'"]+)['"] %\}""", template.read_text()))
    assert {"vendor/htmx/htmx.min.js", "vendor/htmx-ext-ws/ws.js", "vendor/cytoscape/cytoscape.min.js"} <= loaded
    vendor_dirs = {
        prefix: Path(folder).relative_to(settings.BASE_DIR)
        for prefix, folder in (entry for entry in settings.STATICFILES_DIRS if isinstance(entry, tuple))
    }
    missing = []
    for path in sorted(loaded):
        prefix = next(p for p in vendor_dirs if path.startswith(p + "/"))
        if not (workdir / vendor_dirs[prefix] / path.removeprefix(prefix + "/")).is_file():
            missing.append(path)
    assert missing == [], f"the npm stage does not produce {missing}"


def test_it_builds_the_front_end_with_the_same_script_here_and_in_the_image():
    """scripts/bootstrap.sh and the Dockerfile both run scripts/build-static.sh, and neither runs npm itself."""
    bootstrap = [
        line
        for line in (ROOT / "scripts" / "bootstrap.sh").read_text().splitlines()
        if not line.lstrip().startswith("#")
    ]
    assert "scripts/build-static.sh" in [line.strip() for line in bootstrap]
    assert not any(re.search(r"\bnpm\b", line) for line in bootstrap)
    assert "RUN scripts/build-static.sh" in _stage(_dockerfile(), "static")
    assert "npm" not in " ".join(line for line in _dockerfile().splitlines() if not line.startswith("#"))


def test_it_leaves_the_test_only_npm_packages_out_of_the_image():
    """npm's devDependencies (axe-core, for the browser sweep) are for the tests: the static stage installs
    without them, and no static folder serves one."""
    dev = set(json.loads((ROOT / "package.json").read_text()).get("devDependencies", {}))
    assert "axe-core" in dev
    assert "ENV NODE_ENV=production" in _stage(_dockerfile(), "static")
    served = {
        Path(folder).relative_to(settings.BASE_DIR).parts[1]
        for _prefix, folder in (entry for entry in settings.STATICFILES_DIRS if isinstance(entry, tuple))
    }
    assert not served & dev, f"static files served from dev dependencies: {served & dev}"
