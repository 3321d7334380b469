"""An index on a memory's user among the memories that have a cue vector: recall's cue branch (the
nearest by cues) reads only those, instead of every row of the user (issue #35, bench.scale --tenants)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("memoryapp", "0007_memory_cues"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="memory",
            index=models.Index(
                condition=models.Q(("cue_embedding__isnull", False)), fields=["user"], name="memory_user_cued"
            ),
        ),
    ]
