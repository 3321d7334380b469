"""`manage.py check --deploy` is clean with the production settings compose.yaml sets."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION = {
    "DEBUG": "False",
    "SECRET_KEY": secrets.token_urlsafe(60),
    "SECURE_COOKIES": "True",
    "SECURE_SSL_REDIRECT": "True",
    "SECURE_HSTS_SECONDS": "31536000",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS": "True",
    "SECURE_HSTS_PRELOAD": "True",
    "TRUST_X_FORWARDED_PROTO": "True",
    "ALLOWED_HOSTS": "memory.example.com",
}


def test_it_passes_the_deploy_checklist_with_production_settings():
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env={**os.environ, **PRODUCTION},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_it_warns_when_run_with_development_defaults():
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy"],
        cwd=ROOT,
        env={**os.environ, "DEBUG": "True"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "security.W018" in result.stderr + result.stdout  # DEBUG on in deployment
