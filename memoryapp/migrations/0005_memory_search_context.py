"""Memory.context and Memory.search_context: the full-text vector now also holds the memory's context
(weight C) and its date in words, below its own words (weight A). A generated column cannot be
altered, so it is dropped and added again (Postgres recomputes it), and existing memories get their
date words here."""

import logging
import re
import unicodedata

import django.contrib.postgres.indexes
import django.contrib.postgres.search
from django.db import migrations, models

# A migration runs what it ran when it was written: memoryapp.engine.text.search_context and what it needs
# (segment, search_tokens, date_words; lib/scripts.py's CJK ranges), copied as of 2026-11-28, so a later
# change to the app's code cannot change what this migration writes (tests/unit/test_migrations_are_frozen.py).
_CJK = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]")
_WORD = re.compile(r"\w", re.UNICODE)
_MONTHS = ("january february march april may june july august september october november december").split()


def _segment(text):
    import jieba

    jieba.setLogLevel(logging.WARNING)
    text = unicodedata.normalize("NFKC", text)
    if not _CJK.search(text):
        return re.findall(r"\w+", text.casefold())
    return [w.casefold() for w in jieba.cut_for_search(text) if _WORD.search(w) and not w.isspace()]


def _date_words(when):
    if when is None:
        return ""
    return f"{_MONTHS[when.month - 1]} {when.year}"


def _search_context(context, when):
    return " ".join(part for part in (" ".join(_segment(context)) if context else "", _date_words(when)) if part)


def backfill_dates(apps, schema_editor):
    Memory = apps.get_model("memoryapp", "Memory")
    batch = []
    for memory in Memory.objects.only("id", "context", "valid_from").iterator(chunk_size=2000):
        memory.search_context = _search_context(memory.context, memory.valid_from)
        batch.append(memory)
        if len(batch) >= 2000:
            Memory.objects.bulk_update(batch, ["search_context"])
            batch = []
    if batch:
        Memory.objects.bulk_update(batch, ["search_context"])


class Migration(migrations.Migration):
    dependencies = [
        ("memoryapp", "0004_memory_list_index"),
    ]

    operations = [
        migrations.AddField(
            model_name="memory",
            name="context",
            field=models.TextField(blank=True, default=""),
        ),
        migrations.AddField(
            model_name="memory",
            name="search_context",
            field=models.TextField(blank=True, default=""),
        ),
        migrations.RemoveIndex(model_name="memory", name="memory_search_vector"),
        migrations.RemoveField(model_name="memory", name="search_vector"),
        migrations.AddField(
            model_name="memory",
            name="search_vector",
            field=models.GeneratedField(
                db_persist=True,
                expression=django.contrib.postgres.search.SearchVector(
                    "search_tokens", config="memoryapp_mixed", weight="A"
                )
                + django.contrib.postgres.search.SearchVector("search_context", config="memoryapp_mixed", weight="C"),
                output_field=django.contrib.postgres.search.SearchVectorField(),
            ),
        ),
        migrations.AddIndex(
            model_name="memory",
            index=django.contrib.postgres.indexes.GinIndex(fields=["search_vector"], name="memory_search_vector"),
        ),
        migrations.RunPython(backfill_dates, migrations.RunPython.noop),
    ]
