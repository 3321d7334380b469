"""System checks: the graph settings must be valid; the database must have pgvector and pg_trgm, and
the embedding column must have the dimension the settings ask for (healthchecks-style: ids and hints).

Database checks run where a database is named: `./run` (`manage.py up`), `migrate`,
`check --database default`."""

from __future__ import annotations

from django.conf import settings
from django.core.checks import Error, Tags, Warning, register
from django.core.exceptions import ImproperlyConfigured
from django.db import connection
from django.db.utils import DatabaseError


@register()
def check_graph_settings(app_configs=None, **kwargs):
    """GRAPH_* are validated in one place, the graph's typed settings; every command that checks fails here."""
    from memoryapp.graph.conf import graph_config

    try:
        graph_config()
    except ImproperlyConfigured as exc:
        return [Error(str(exc), hint="see the configuration table in README.md", id="memoryapp.E010")]
    return []


@register()
def check_learned_models_match_the_embedder(app_configs=None, **kwargs):
    """The trained models decide on vectors: on another embedder's they would decide blind, so they step
    aside (the rules take over) and the operator is told how to retrain."""
    from memoryapp.engine.learned.model import RETRAIN_COMMAND, mismatched

    return [
        Warning(
            f"The learned model '{m.name}' was trained on {m.embedder} vectors, but EMBEDDING_MODEL is "
            f"{settings.EMBEDDING_MODEL}: it is not used, and the hand-written rules decide instead.",
            hint=f"Retrain for this embedder: `{RETRAIN_COMMAND}` (pip install -e .[train] first).",
            id="memoryapp.W020",
        )
        for m in mismatched()
    ]


@register(Tags.database)
def check_extensions_and_dimension(app_configs=None, databases=None, **kwargs):
    if not databases or "default" not in databases:  # as Django's own database checks: only when asked
        return []
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
    except DatabaseError:
        # Nothing to check without a server; the command itself then fails on the connection, and
        # manage.py turns that into one line that says what to run.
        return []
    if row and row[0] > 0 and row[0] != settings.EMBEDDING_DIM:
        errors.append(
            Error(
                f"EMBEDDING_DIM is {settings.EMBEDDING_DIM} but the stored embeddings have {row[0]} dimensions.",
                hint=(
                    f"Set EMBEDDING_MODEL and EMBEDDING_DIM={row[0]} back to the model the memories were "
                    "embedded with, or move them to the new model: run `manage.py reembed` with the new "
                    "settings (the app can keep running on the old ones meanwhile), then start with the new."
                ),
                id="memoryapp.E003",
            )
        )
    return errors
