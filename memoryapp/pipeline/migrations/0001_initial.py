"""The pipeline's models, moved here from the `tasks` app: their tables stay as they are (state only).

On a database migrated before the move, `tasks` 0001-0002 created the tables and this adopts them;
on a fresh one the same happens in one run. Their content types move too, so admin permissions stay.
"""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


MODELS = ("extractionrun", "memorysuggestion", "consolidationrun", "forgettingrun", "failedtask")


def move_content_types(source: str, target: str):
    def move(apps, schema_editor) -> None:
        content_types = apps.get_model("contenttypes", "ContentType").objects.using(schema_editor.connection.alias)
        taken = set(content_types.filter(app_label=target).values_list("model", flat=True))
        content_types.filter(app_label=source, model__in=set(MODELS) - taken).update(app_label=target)

    return move


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("tasks", "0002_extractionrun_claimed_by"),
        ("conversations", "0003_conversation_summary"),
        ("memoryapp", "0005_memory_search_context"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="ExtractionRun",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("key", models.CharField(max_length=64, unique=True)),
                        ("message_ids", models.JSONField(default=list)),
                        ("last_message_id", models.BigIntegerField()),
                        (
                            "status",
                            models.CharField(
                                choices=[
                                    ("queued", "Queued"),
                                    ("running", "Running"),
                                    ("done", "Done"),
                                    ("suggested", "Waiting for the user"),
                                    ("skipped", "Skipped"),
                                    ("failed", "Failed"),
                                ],
                                default="queued",
                                max_length=16,
                            ),
                        ),
                        ("attempts", models.PositiveSmallIntegerField(default=0)),
                        ("claimed_by", models.CharField(blank=True, default="", max_length=255)),
                        ("llm_calls", models.PositiveSmallIntegerField(default=0)),
                        ("seconds", models.FloatField(default=0.0)),
                        ("candidates", models.PositiveSmallIntegerField(default=0)),
                        (
                            "applied",
                            models.JSONField(
                                blank=True, default=dict, help_text="How many of each decision were applied."
                            ),
                        ),
                        ("error", models.TextField(blank=True, default="")),
                        ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                        ("started_at", models.DateTimeField(blank=True, null=True)),
                        ("finished_at", models.DateTimeField(blank=True, null=True)),
                        (
                            "conversation",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="extraction_runs",
                                to="conversations.conversation",
                            ),
                        ),
                        (
                            "user",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "db_table": "tasks_extractionrun",
                        "ordering": ["-created_at", "-id"],
                    },
                ),
                migrations.CreateModel(
                    name="FailedTask",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("task_name", models.CharField(max_length=200)),
                        ("task_id", models.CharField(blank=True, default="", max_length=64)),
                        ("args", models.JSONField(default=list)),
                        ("kwargs", models.JSONField(default=dict)),
                        ("error", models.TextField()),
                        ("traceback", models.TextField(blank=True, default="")),
                        ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                        ("resolved_at", models.DateTimeField(blank=True, null=True)),
                    ],
                    options={
                        "db_table": "tasks_failedtask",
                        "ordering": ["-created_at", "-id"],
                        "indexes": [models.Index(fields=["task_name", "resolved_at"], name="failed_task_open")],
                    },
                ),
                migrations.CreateModel(
                    name="ForgettingRun",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("day", models.DateField()),
                        ("forgotten", models.PositiveIntegerField(default=0)),
                        ("demoted", models.PositiveIntegerField(default=0)),
                        ("promoted", models.PositiveIntegerField(default=0)),
                        ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                        (
                            "user",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "db_table": "tasks_forgettingrun",
                        "ordering": ["-day", "-id"],
                    },
                ),
                migrations.CreateModel(
                    name="MemorySuggestion",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("content", models.TextField()),
                        ("kind", models.CharField(max_length=16)),
                        ("importance", models.FloatField()),
                        ("confidence", models.FloatField()),
                        (
                            "status",
                            models.CharField(
                                choices=[
                                    ("pending", "Pending"),
                                    ("confirmed", "Confirmed"),
                                    ("dismissed", "Dismissed"),
                                ],
                                default="pending",
                                max_length=16,
                            ),
                        ),
                        ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                        ("decided_at", models.DateTimeField(blank=True, null=True)),
                        (
                            "conversation",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="+",
                                to="conversations.conversation",
                            ),
                        ),
                        (
                            "memory",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="+",
                                to="memoryapp.memory",
                            ),
                        ),
                        (
                            "message",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="+",
                                to="conversations.message",
                            ),
                        ),
                        (
                            "run",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="suggestions",
                                to="pipeline.extractionrun",
                            ),
                        ),
                        (
                            "user",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="memory_suggestions",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "db_table": "tasks_memorysuggestion",
                        "ordering": ["-created_at", "-id"],
                    },
                ),
                migrations.CreateModel(
                    name="ConsolidationRun",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("first_message_id", models.BigIntegerField()),
                        ("last_message_id", models.BigIntegerField()),
                        ("llm_calls", models.PositiveSmallIntegerField(default=0)),
                        ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                        (
                            "conversation",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="consolidation_runs",
                                to="conversations.conversation",
                            ),
                        ),
                        (
                            "memory",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="+",
                                to="memoryapp.memory",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "tasks_consolidationrun",
                        "ordering": ["-created_at", "-id"],
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("conversation", "first_message_id"), name="consolidation_once_per_window"
                            )
                        ],
                    },
                ),
                migrations.AddIndex(
                    model_name="extractionrun",
                    index=models.Index(fields=["conversation", "last_message_id"], name="extraction_conv_last"),
                ),
                migrations.AddConstraint(
                    model_name="forgettingrun",
                    constraint=models.UniqueConstraint(fields=("user", "day"), name="forgetting_once_per_day"),
                ),
                migrations.AddIndex(
                    model_name="memorysuggestion",
                    index=models.Index(fields=["user", "status"], name="suggestion_user_status"),
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(move_content_types("tasks", "pipeline"), move_content_types("pipeline", "tasks")),
    ]
