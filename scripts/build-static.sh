#!/usr/bin/env bash
# The front-end build, one script for both scripts/bootstrap.sh and the Dockerfile's static stage, so the
# two cannot drift: installs the npm packages pinned in package-lock.json (htmx, its websocket
# extension, and cytoscape for the memory graph page) into node_modules/, which STATICFILES_DIRS serves as static/vendor/ and collectstatic copies.
# Here the devDependencies come too (axe-core, which tests/browser/test_sweep.py injects into pages); the
# image's stage sets NODE_ENV=production, so npm leaves them out there.
# Does nothing when node_modules/ already matches package.json and package-lock.json.
set -euo pipefail
cd "$(dirname "$0")/.."
installed=node_modules/.package-lock.json  # npm writes it on every install
if [ -f "$installed" ] && [ "$installed" -nt package.json ] && [ "$installed" -nt package-lock.json ]; then
  exit 0
fi
command -v npm >/dev/null || { echo "memoryapp: the front-end build needs npm (Node.js 18+)" >&2; exit 1; }
# ci, not install: exactly the lock's versions, and an error (not a silent re-resolve) when the lock
# no longer matches package.json. --prefer-offline reuses npm's cache, so a rebuild needs no network.
npm ci --no-audit --no-fund --prefer-offline --loglevel=error
