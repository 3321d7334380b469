"""Memory.cues: short situations in which a memory would help, shown, edited and embedded
(cue_embedding, searched beside the content's vector) and searched in full text at weight B, between
the content (A) and the context (C). The generated column cannot be altered: it is dropped and added
again, as in 0005. Existing memories start without cues; the cue job (engine/memories/cues.py) writes
them when a model is available."""

import django.contrib.postgres.fields
import django.contrib.postgres.indexes
import django.contrib.postgres.search
import pgvector.django.indexes
import pgvector.django.vector
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("memoryapp", "0006_first_account_administers"),
    ]

    operations = [
        migrations.AddField(
            model_name="memory",
            name="cues",
            field=django.contrib.postgres.fields.ArrayField(
                base_field=models.CharField(max_length=200), blank=True, default=list, size=None
            ),
        ),
        migrations.AddField(
            model_name="memory",
            name="cue_embedding",
            field=pgvector.django.vector.VectorField(blank=True, dimensions=settings.EMBEDDING_DIM, null=True),
        ),
        migrations.AddField(
            model_name="memory",
            name="cues_written_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="memory",
            name="search_cues",
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
                + django.contrib.postgres.search.SearchVector("search_cues", config="memoryapp_mixed", weight="B")
                + django.contrib.postgres.search.SearchVector("search_context", config="memoryapp_mixed", weight="C"),
                output_field=django.contrib.postgres.search.SearchVectorField(),
            ),
        ),
        migrations.AddIndex(
            model_name="memory",
            index=django.contrib.postgres.indexes.GinIndex(fields=["search_vector"], name="memory_search_vector"),
        ),
        migrations.AddIndex(
            model_name="memory",
            index=pgvector.django.indexes.HnswIndex(
                ef_construction=64,
                fields=["cue_embedding"],
                m=16,
                name="memory_cue_embedding_hnsw",
                opclasses=["vector_cosine_ops"],
            ),
        ),
    ]
