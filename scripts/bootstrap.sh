#!/usr/bin/env bash
# Create .venv and install memoryapp into it (with the test extras given --test).
# Re-installs only when pyproject.toml changed since the last install.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$python" -m venv .venv
extras=""
[ "${1:-}" = "--test" ] && extras="[test]"
stamp=".venv/.installed${extras:+-test}"
want="$(sha256sum pyproject.toml | cut -c1-16)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "installing Python packages into .venv (first run takes a few minutes)..."
  .venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip
  .venv/bin/python -m pip install -q -e ".${extras}"
  echo "$want" > "$stamp"
fi
# htmx and its websocket extension, served as static files: the same build the Dockerfile runs.
scripts/build-static.sh
