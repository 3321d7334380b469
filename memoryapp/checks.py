"""System checks: the database must have pgvector and pg_trgm, and the embedding column must
have the dimension the settings ask for (healthchecks-style: ids and hints)."""
from __future__ import annotations

from django.conf import settings
from django.core.checks import Error, Tags, register
from django.db import connection
from django.db.utils import DatabaseError


@register(Tags.database, deploy=True)
def check_extensions_and_dimension(app_configs=None, **kwargs):
    errors = []
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT name FROM pg_available_extensions WHERE name IN ('vector', 'pg_trgm')")
            available = {row[0] for row in cursor.fetchall()}
            for ext, hint in (("vector", "install pgvector"), ("pg_trgm", "install postgresql-contrib")):
                if ext not in available:
                    errors.append(Error(f"The database lacks the {ext} extension.", hint=hint, id="memoryapp.E001"))
            cursor.execute(
                "SELECT atttypmod FROM pg_attribute WHERE attrelid = to_regclass('memoryapp_memory') "
                "AND attname = 'embedding'"
            )
            row = cursor.fetchone()
    except DatabaseError as exc:
        return [Error(f"Cannot reach the database: {exc}".splitlines()[0], id="memoryapp.E002")]
    if row and row[0] > 0 and row[0] != settings.EMBEDDING_DIM:
        errors.append(
            Error(
                f"EMBEDDING_DIM is {settings.EMBEDDING_DIM} but the stored embeddings have {row[0]} dimensions.",
                hint="Use the embedding model the data was written with, or re-embed with `manage.py reembed`.",
                id="memoryapp.E003",
            )
        )
    return errors
