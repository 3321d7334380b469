"""The models moved to memoryapp.pipeline (its 0001): forgotten here, their tables kept (state only)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("pipeline", "0001_initial"),
        ("tasks", "0002_extractionrun_claimed_by"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveField(
                    model_name="consolidationrun",
                    name="conversation",
                ),
                migrations.RemoveField(
                    model_name="consolidationrun",
                    name="memory",
                ),
                migrations.RemoveField(
                    model_name="extractionrun",
                    name="conversation",
                ),
                migrations.RemoveField(
                    model_name="extractionrun",
                    name="user",
                ),
                migrations.RemoveField(
                    model_name="memorysuggestion",
                    name="run",
                ),
                migrations.DeleteModel(
                    name="FailedTask",
                ),
                migrations.RemoveField(
                    model_name="forgettingrun",
                    name="user",
                ),
                migrations.RemoveField(
                    model_name="memorysuggestion",
                    name="conversation",
                ),
                migrations.RemoveField(
                    model_name="memorysuggestion",
                    name="memory",
                ),
                migrations.RemoveField(
                    model_name="memorysuggestion",
                    name="message",
                ),
                migrations.RemoveField(
                    model_name="memorysuggestion",
                    name="user",
                ),
                migrations.DeleteModel(
                    name="ConsolidationRun",
                ),
                migrations.DeleteModel(
                    name="ExtractionRun",
                ),
                migrations.DeleteModel(
                    name="ForgettingRun",
                ),
                migrations.DeleteModel(
                    name="MemorySuggestion",
                ),
            ],
            database_operations=[],
        ),
    ]
