"""Bookkeeping for the background pipeline: what ran on which window, what waits for the user, what failed.

Each run row is the idempotency key of its job: a window of messages, a conversation window, or a user's day.
These models lived in the `tasks` app until the engine needed them without importing an edge; their tables
kept the names they had there (`db_table`), so the move dropped no row.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class RunStatus(models.TextChoices):
    QUEUED = "queued", _("Queued")
    RUNNING = "running", _("Running")
    DONE = "done", _("Done")
    SUGGESTED = "suggested", _("Waiting for the user")
    SKIPPED = "skipped", _("Skipped")
    FAILED = "failed", _("Failed")


class ExtractionRun(models.Model):
    """One extraction of one message window; `key` = conversation + the window's message ids."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    conversation = models.ForeignKey(
        "conversations.Conversation", on_delete=models.CASCADE, related_name="extraction_runs"
    )
    key = models.CharField(max_length=64, unique=True)
    message_ids = models.JSONField(default=list)
    last_message_id = models.BigIntegerField()
    status = models.CharField(max_length=16, choices=RunStatus.choices, default=RunStatus.QUEUED)
    attempts = models.PositiveSmallIntegerField(default=0)
    # The Celery task id holding the claim: the broker redelivers a message whose worker died unacked
    # with the same id, and that redelivery may take the run over at once (engine/learning/extraction.py: claim).
    claimed_by = models.CharField(max_length=255, blank=True, default="")
    llm_calls = models.PositiveSmallIntegerField(default=0)
    seconds = models.FloatField(default=0.0)
    candidates = models.PositiveSmallIntegerField(default=0)
    applied = models.JSONField(default=dict, blank=True, help_text="How many of each decision were applied.")
    error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "tasks_extractionrun"
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["conversation", "last_message_id"], name="extraction_conv_last")]

    def __str__(self) -> str:
        return f"extraction {self.key} ({self.status})"


class SuggestionStatus(models.TextChoices):
    PENDING = "pending", _("Pending")
    CONFIRMED = "confirmed", _("Confirmed")
    DISMISSED = "dismissed", _("Dismissed")


class MemorySuggestion(models.Model):
    """A memory a chat yielded, kept for the user's confirmation (auto-extract is off): an extracted
    candidate or a conversation's episode."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memory_suggestions")
    run = models.ForeignKey(ExtractionRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="suggestions")
    conversation = models.ForeignKey(
        "conversations.Conversation", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    message = models.ForeignKey(
        "conversations.Message", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    content = models.TextField()
    kind = models.CharField(max_length=16)
    importance = models.FloatField()
    confidence = models.FloatField()
    # When what it says began (an episode: its window's first message); confirming keeps it. None: then.
    valid_from = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=SuggestionStatus.choices, default=SuggestionStatus.PENDING)
    memory = models.ForeignKey("memoryapp.Memory", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "tasks_memorysuggestion"
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["user", "status"], name="suggestion_user_status")]

    def __str__(self) -> str:
        return f"{self.kind}: {self.content[:60]} ({self.status})"


class ConsolidationRun(models.Model):
    """One episode per conversation window, keyed by the window's first message."""

    conversation = models.ForeignKey(
        "conversations.Conversation", on_delete=models.CASCADE, related_name="consolidation_runs"
    )
    first_message_id = models.BigIntegerField()
    last_message_id = models.BigIntegerField()
    memory = models.ForeignKey("memoryapp.Memory", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    llm_calls = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "tasks_consolidationrun"
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["conversation", "first_message_id"], name="consolidation_once_per_window")
        ]


class ForgettingRun(models.Model):
    """One forgetting pass per user per day: a second run on the same day changes nothing."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    day = models.DateField()
    forgotten = models.PositiveIntegerField(default=0)
    demoted = models.PositiveIntegerField(default=0)
    promoted = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "tasks_forgettingrun"
        ordering = ["-day", "-id"]
        constraints = [models.UniqueConstraint(fields=["user", "day"], name="forgetting_once_per_day")]


class FailedTask(models.Model):
    """A task that gave up after its retries; the admin can re-run it (its args are kept verbatim)."""

    task_name = models.CharField(max_length=200)
    task_id = models.CharField(max_length=64, blank=True, default="")
    args = models.JSONField(default=list)
    kwargs = models.JSONField(default=dict)
    error = models.TextField()
    traceback = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)
    resolved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "tasks_failedtask"
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["task_name", "resolved_at"], name="failed_task_open")]

    def __str__(self) -> str:
        return f"{self.task_name}{tuple(self.args)}: {self.error[:80]}"

    @property
    def resolved(self) -> bool:
        return self.resolved_at is not None


class ImportJob(models.Model):
    """One import of a user's file, run by the worker: its validated rows wait here until the job writes
    them (all or nothing, engine/memories/transfer.py: run_import). `done` moves as batches are written,
    through a connection of its own, so a poll sees it while the import's transaction is still open; the
    rows are cleared once written (the memories hold them now, and a purge must find no copy)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    status = models.CharField(max_length=16, choices=RunStatus.choices, default=RunStatus.QUEUED)
    actor = models.CharField(max_length=16, default="user")  # who asked (memoryapp.models.Actor): the history says
    client = models.CharField(max_length=40, blank=True, default="")  # the program that asked (lib/clients.py)
    rows = models.JSONField(default=list)
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    imported = models.PositiveIntegerField(default=0)
    duplicates = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"import {self.pk} ({self.status}, {self.done}/{self.total})"


class LearnJob(models.Model):
    """One conversation another program sent to learn from (`POST /api/memories/extract`, the MCP tool
    `learn_from_conversation`), learnt by the worker window by window as a chat is (engine/learning/turns.py).
    `windows_done` moves in each window's own transaction, so a run that stops resumes after the last window
    learnt and never learns one twice. The turns wait here until learnt, then are cleared (the memories hold
    what was learnt, and a purge must find no copy). `idempotency_key`: the caller's, one job per key and user;
    `digest`: what the key was first sent with, so the key cannot be reused for other turns."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    status = models.CharField(max_length=16, choices=RunStatus.choices, default=RunStatus.QUEUED)
    actor = models.CharField(max_length=16, default="api")  # who asked (memoryapp.models.Actor)
    client = models.CharField(max_length=40, blank=True, default="")  # the program that asked (lib/clients.py)
    source = models.CharField(max_length=200, blank=True, default="")  # the caller's label: where the turns come from
    idempotency_key = models.CharField(max_length=200, blank=True, default="")
    digest = models.CharField(max_length=64)
    messages = models.JSONField(default=list)  # [{"role", "content", "created_at"}], cleared once learnt
    total = models.PositiveIntegerField(default=0)  # messages
    done = models.PositiveIntegerField(default=0)  # messages learnt from so far
    windows_done = models.PositiveIntegerField(default=0)
    created = models.PositiveIntegerField(default=0)
    superseded = models.PositiveIntegerField(default=0)
    asked = models.PositiveIntegerField(default=0)  # change questions left for the user
    suggested = models.PositiveIntegerField(default=0)  # auto-extract off: waiting for the user's confirmation
    memory_ids = models.JSONField(default=list)
    error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "idempotency_key"],
                condition=~models.Q(idempotency_key=""),
                name="learn_job_once_per_key",
            )
        ]

    def __str__(self) -> str:
        return f"learn {self.pk} ({self.status}, {self.done}/{self.total})"


class HistoryImportStatus(models.TextChoices):
    PREVIEW = "preview", _("Waiting to be started")
    QUEUED = "queued", _("Queued")
    RUNNING = "running", _("Learning")
    DONE = "done", _("Done")
    FAILED = "failed", _("Failed")
    UNDONE = "undone", _("Undone")


class HistoryImport(models.Model):
    """A ChatGPT or Claude export a user brought (engine/history/importing.py): read once for its preview,
    then, once the user starts it, learnt from by the worker one conversation at a time, oldest first.

    The upload waits at `path` (under the var directory, never in the database) until the import is done,
    undone or dropped. `rows` is the preview, one row per conversation as `[id, title, created_at, user
    turns, messages, archived, temporary]`; `selected` the ids the user left ticked, in the order they are
    learnt. Each conversation is learnt in one transaction with `done`, so a worker that stops resumes after
    the last conversation done and none is half-written. `memory_ids` and `conversation_ids`: what the import
    wrote, for its undo."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    status = models.CharField(max_length=16, choices=HistoryImportStatus.choices, default=HistoryImportStatus.PREVIEW)
    actor = models.CharField(max_length=16, default="user")  # who asked (memoryapp.models.Actor)
    client = models.CharField(max_length=40, blank=True, default="")  # the program that asked (lib/clients.py)
    format = models.CharField(max_length=16)  # engine/history/formats.py ExportFormat
    name = models.CharField(max_length=255)  # the file's name, as the user's computer called it
    path = models.CharField(max_length=500, blank=True, default="")  # the stored upload; "" once removed
    rows = models.JSONField(default=list)
    skipped = models.JSONField(default=list)  # what the reader left out, each named in one sentence
    selected = models.JSONField(default=list)
    keep_chats = models.BooleanField(default=False)  # also keep the conversations in the chat history
    total = models.PositiveIntegerField(default=0)  # conversations to learn from
    done = models.PositiveIntegerField(default=0)  # conversations learnt from so far
    created = models.PositiveIntegerField(default=0)
    superseded = models.PositiveIntegerField(default=0)
    suggested = models.PositiveIntegerField(default=0)  # auto-extract off: waiting for the user's confirmation
    model_calls = models.PositiveIntegerField(default=0)
    memory_ids = models.JSONField(default=list)
    conversation_ids = models.JSONField(default=list)
    error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(default=timezone.now)  # the last conversation learnt: a stalled run's sign
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"history import {self.pk} ({self.status}, {self.done}/{self.total})"
