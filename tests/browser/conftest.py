from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from django.conf import settings

FONTS_CONF = Path(__file__).resolve().parent / "fonts.conf"


def font_files() -> list[str]:
    """The font files fonts.conf accepts: all the test browser can draw with."""
    return re.findall(r"<glob>(/[^<*]+)</glob>", FONTS_CONF.read_text())


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """Chromium sees only the fonts fonts.conf names (installed by scripts/system-deps.sh), so pages lay out
    and screenshots render the same on every machine, and one that lacks them fails here, not in a layout."""
    missing = [f for f in font_files() if not Path(f).is_file()]
    if missing:
        pytest.fail(f"fonts for the browser tests are missing ({', '.join(missing)}): run scripts/system-deps.sh")
    return {**browser_type_launch_args, "env": {**os.environ, "FONTCONFIG_FILE": str(FONTS_CONF)}}


@pytest.fixture(scope="session")
def shots() -> Path:
    """Where the browser tests save their screenshots: under the test var dir, so a run leaves the tree clean.

    scripts/screenshots.sh points MEMORYAPP_SCREENSHOTS at docs/screenshots to refresh the docs on purpose.
    """
    folder = Path(os.environ.get("MEMORYAPP_SCREENSHOTS") or settings.VAR_DIR / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module", autouse=True)
def _orm_beside_playwright(app_server):
    """Playwright's sync API keeps an event loop on the test thread; the test's own ORM calls are sync.

    Only browser modules get this, and only after Daphne started (it must not inherit it).
    Module-scoped so it outlives the database flush at each test's end.
    """
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    yield
    if previous is None:
        os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    else:
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous
