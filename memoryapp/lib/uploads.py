"""Where a user's uploads wait to be read by a background job (a ChatGPT or Claude export): under the var
directory, one folder per user, never in the database. The purge removes a user's folder with their data."""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path
from typing import IO

from django.conf import settings

CHUNK = 1 << 20


def user_dir(user_id: int) -> Path:
    return Path(settings.VAR_DIR) / "uploads" / str(int(user_id))


def keep(user_id: int, source: IO[bytes], suffix: str) -> Path:
    """Copy `source` (read in chunks: an upload spooled to disk by Django stays out of memory) to a new file of
    the user's; returns its path."""
    folder = user_dir(user_id)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{uuid.uuid4().hex}{suffix}"
    with open(path, "wb") as out:
        shutil.copyfileobj(source, out, CHUNK)
    return path


def remove(path: str | Path) -> None:
    if path:
        Path(path).unlink(missing_ok=True)


def remove_user(user_id: int) -> None:
    shutil.rmtree(user_dir(user_id), ignore_errors=True)
