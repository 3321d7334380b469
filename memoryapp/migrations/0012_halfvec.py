"""Embeddings in half precision (halfvec): rows keep their vectors in the table's own pages and the HNSW
indexes are half the size. The indexes are dropped, the columns converted in place, the indexes built
again (minutes for a million memories)."""

import pgvector.django
from django.conf import settings
from django.db import migrations


def _hnsw(name: str, field: str) -> pgvector.django.HnswIndex:
    return pgvector.django.HnswIndex(
        ef_construction=64, fields=[field], m=16, name=name, opclasses=["halfvec_cosine_ops"]
    )


class Migration(migrations.Migration):
    dependencies = [("memoryapp", "0011_client")]

    operations = [
        migrations.RemoveIndex(model_name="memory", name="memory_embedding_hnsw"),
        migrations.RemoveIndex(model_name="memory", name="memory_cue_embedding_hnsw"),
        migrations.AlterField(
            model_name="memory",
            name="embedding",
            field=pgvector.django.HalfVectorField(blank=True, dimensions=settings.EMBEDDING_DIM, null=True),
        ),
        migrations.AlterField(
            model_name="memory",
            name="cue_embedding",
            field=pgvector.django.HalfVectorField(blank=True, dimensions=settings.EMBEDDING_DIM, null=True),
        ),
        migrations.AddIndex(model_name="memory", index=_hnsw("memory_embedding_hnsw", "embedding")),
        migrations.AddIndex(model_name="memory", index=_hnsw("memory_cue_embedding_hnsw", "cue_embedding")),
    ]
