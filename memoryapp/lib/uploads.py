"""Where a user's uploads wait to be read by a background job (a ChatGPT or Claude export): under the var
directory, one folder per user, never in the database. The purge removes a user's folder with their data."""

from __future__ import annotations

import re
import shutil
import time
import uuid
from pathlib import Path
from typing import IO

from django.conf import settings

CHUNK = 1 << 20
_TOKEN = re.compile(r"^[0-9a-f]{32}$")


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


def start_parts(user_id: int) -> str:
    """A new empty upload of the user's, sent in parts (a browser slices a large file: the web server then
    never holds more than a part): its token."""
    folder = user_dir(user_id)
    folder.mkdir(parents=True, exist_ok=True)
    token = uuid.uuid4().hex
    (folder / f"{token}.part").touch()
    return token


def parts_path(user_id: int, token: str) -> Path | None:
    """The user's upload under way with this token; None for a token that is not one (or another user's)."""
    if not _TOKEN.match(token or ""):
        return None
    path = user_dir(user_id) / f"{token}.part"
    return path if path.is_file() else None


def append_part(path: Path, offset: int, data: bytes) -> int:
    """Add the part that starts at `offset` (a part sent again after a lost answer lands where it did);
    returns the size so far. ValueError for a part that would leave a gap."""
    size = path.stat().st_size
    if offset > size:
        raise ValueError(f"part at byte {offset}, but only {size} bytes have arrived")
    with open(path, "r+b") as out:
        out.seek(offset)
        out.write(data)
        out.truncate()
        return out.tell()


def remove_stale_parts(older_than_seconds: float, keep: set[str]) -> int:
    """Uploads sent in parts and never finished (the tab closed): removed after a while, but for those in
    `keep` (paths a job holds); how many."""
    cutoff = time.time() - older_than_seconds
    stale = [
        path
        for path in (Path(settings.VAR_DIR) / "uploads").glob("*/*.part")
        if path.stat().st_mtime < cutoff and str(path) not in keep
    ]
    for path in stale:
        path.unlink(missing_ok=True)
    return len(stale)
