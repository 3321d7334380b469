"""Memory.context and Memory.search_context: the full-text vector now also holds the memory's context
(weight C) and its date in words, below its own words (weight A). A generated column cannot be
altered, so it is dropped and added again (Postgres recomputes it), and existing memories get their
date words here."""

import django.contrib.postgres.indexes
import django.contrib.postgres.search
from django.db import migrations, models


def backfill_dates(apps, schema_editor):
    from memoryapp.engine.text import search_context

    Memory = apps.get_model("memoryapp", "Memory")
    batch = []
    for memory in Memory.objects.only("id", "context", "valid_from").iterator(chunk_size=2000):
        memory.search_context = search_context(memory.context, memory.valid_from)
        batch.append(memory)
        if len(batch) >= 2000:
            Memory.objects.bulk_update(batch, ["search_context"])
            batch = []
    if batch:
        Memory.objects.bulk_update(batch, ["search_context"])


class Migration(migrations.Migration):

    dependencies = [
        ('memoryapp', '0004_memory_list_index'),
    ]

    operations = [
        migrations.AddField(
            model_name='memory',
            name='context',
            field=models.TextField(blank=True, default=''),
        ),
        migrations.AddField(
            model_name='memory',
            name='search_context',
            field=models.TextField(blank=True, default=''),
        ),
        migrations.RemoveIndex(model_name='memory', name='memory_search_vector'),
        migrations.RemoveField(model_name='memory', name='search_vector'),
        migrations.AddField(
            model_name='memory',
            name='search_vector',
            field=models.GeneratedField(
                db_persist=True,
                expression=django.contrib.postgres.search.SearchVector('search_tokens', config='memoryapp_mixed', weight='A')
                + django.contrib.postgres.search.SearchVector('search_context', config='memoryapp_mixed', weight='C'),
                output_field=django.contrib.postgres.search.SearchVectorField(),
            ),
        ),
        migrations.AddIndex(
            model_name='memory',
            index=django.contrib.postgres.indexes.GinIndex(fields=['search_vector'], name='memory_search_vector'),
        ),
        migrations.RunPython(backfill_dates, migrations.RunPython.noop),
    ]
