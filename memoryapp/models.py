"""The system of record for memory: Memory, MemoryEvent, MemorySettings.

The graph is derived from these rows and can be rebuilt from them.
"""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from pgvector.django import HalfVectorField, HnswIndex

from memoryapp.lib import clients

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

MAX_CONTENT_LENGTH = 2000
MAX_CUES = 12  # situations per memory (a few in the user's language and a few in English)
MAX_CUE_LENGTH = 200
_SPACES = re.compile(r"\s+")


def user_id_of(user: AbstractBaseUser | int) -> int:
    """The id of a user given as a user or as an id: the engine's entry points take either."""
    return user if isinstance(user, int) else int(user.pk)


def normalise_content(text: str) -> str:
    """What "the same memory" compares (Memory.content_key hashes it; extraction drops repeats by it):
    NFKC, case-folded, spaces collapsed, trailing punctuation dropped."""
    text = _SPACES.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()
    return text.rstrip(".!?。！？;；,，")


class MemoryKind(models.TextChoices):
    PREFERENCE = "preference", _("Preference")
    FACT = "fact", _("Fact")
    LESSON = "lesson", _("Lesson")
    GOAL = "goal", _("Goal")
    CONTEXT = "context", _("Context")
    EPISODE = "episode", _("Episode")

    @property
    def icon(self) -> str:
        """The symbol every page shows beside this kind (drawn by the fonts the pages use)."""
        return KIND_ICONS[self]


KIND_ICONS = {
    MemoryKind.PREFERENCE: "♥",
    MemoryKind.FACT: "ℹ",
    MemoryKind.LESSON: "✎",
    MemoryKind.GOAL: "◎",
    MemoryKind.CONTEXT: "⌂",
    MemoryKind.EPISODE: "◷",
}


class Lifecycle(models.TextChoices):
    CORE = "core", _("Core")
    WORKING = "working", _("Working")
    TEMPORARY = "temporary", _("Temporary")


class MemoryStatus(models.TextChoices):
    ACTIVE = "active", _("Active")
    FORGOTTEN = "forgotten", _("Forgotten")
    DELETED = "deleted", _("Deleted")


class MemorySource(models.TextChoices):
    EXTRACTED = "extracted", _("Extracted")
    MANUAL = "manual", _("Manual")
    IMPORTED = "imported", _("Imported")


class GraphSyncState(models.TextChoices):
    PENDING = "pending", _("Pending")
    SYNCING = "syncing", _("Syncing")
    SYNCED = "synced", _("Synced")
    FAILED = "failed", _("Failed")


class Memory(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memories")
    content = models.TextField()
    # Normalised content; with the partial unique constraint below it makes two concurrent writers of
    # the same fact end with one row.
    content_key = models.CharField(max_length=64)
    kind = models.CharField(max_length=16, choices=MemoryKind.choices, default=MemoryKind.FACT)
    lifecycle = models.CharField(max_length=16, choices=Lifecycle.choices, default=Lifecycle.WORKING)
    importance = models.FloatField(default=0.5)
    confidence = models.FloatField(default=0.8)
    access_count = models.PositiveIntegerField(default=0)
    last_accessed_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=MemoryStatus.choices, default=MemoryStatus.ACTIVE)
    valid_from = models.DateTimeField(default=timezone.now)
    valid_until = models.DateTimeField(null=True, blank=True)
    supersedes = models.ManyToManyField("self", symmetrical=False, related_name="superseded_by", blank=True)
    source = models.CharField(max_length=16, choices=MemorySource.choices, default=MemorySource.MANUAL)
    source_conversation = models.ForeignKey(
        "conversations.Conversation", null=True, blank=True, on_delete=models.SET_NULL, related_name="memories"
    )
    source_message = models.ForeignKey(
        "conversations.Message", null=True, blank=True, on_delete=models.SET_NULL, related_name="memories"
    )
    # Half precision (halfvec): half the bytes of a float4 vector, so a row and its vectors stay in the
    # table's own pages (a 2 KB vector was moved out to TOAST) and the HNSW index is half the size; the
    # ranking does not change (docs/benchmarks/speed.md, "Half-precision vectors").
    embedding = HalfVectorField(dimensions=settings.EMBEDDING_DIM, null=True, blank=True)
    # Where the memory was learnt (the message it came from, or the turn before it): searched as
    # context for the memory's own words, never shown or put in a prompt.
    context = models.TextField(default="", blank=True)
    # Cues: short situations or questions in which the memory would help ("building Docker images",
    # "构建镜像"), written by a model at extraction or by the background cue job, editable on the card.
    # Unlike `context` they are shown and embedded: recall takes the better of the content's and the
    # cues' cosine, so a memory a message only implies is still found.
    cues = ArrayField(models.CharField(max_length=MAX_CUE_LENGTH), default=list, blank=True)
    cue_embedding = HalfVectorField(dimensions=settings.EMBEDDING_DIM, null=True, blank=True)
    # When the cues were last written (by a model or a person); NULL: the cue job has not seen it yet.
    cues_written_at = models.DateTimeField(null=True, blank=True)
    # True: nobody wrote these cues; they were inferred from the situation bank (engine/learned/situations.py)
    # when the memory was written, and a model's replace them (the cue job), as a person's do.
    cues_inferred = models.BooleanField(default=False)
    # jieba-segmented, lower-cased text; Postgres derives the tsvector from it (config in migration 0001).
    search_tokens = models.TextField(default="", blank=True)
    # The same for the context and the memory's date in words ("may 2023"): weighted below the content.
    search_context = models.TextField(default="", blank=True)
    # The same for the cues: weighted between the content and the context.
    search_cues = models.TextField(default="", blank=True)
    search_vector = models.GeneratedField(
        expression=SearchVector("search_tokens", config="memoryapp_mixed", weight="A")
        + SearchVector("search_cues", config="memoryapp_mixed", weight="B")
        + SearchVector("search_context", config="memoryapp_mixed", weight="C"),
        output_field=SearchVectorField(),
        db_persist=True,
    )
    graph_episode_id = models.CharField(max_length=64, blank=True, default="")
    graph_sync_state = models.CharField(max_length=16, choices=GraphSyncState.choices, default=GraphSyncState.PENDING)
    graph_synced_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["user", "status", "kind"], name="memory_user_status_kind"),
            # The memories page lists newest first: without this it sorts all of a user's rows.
            models.Index(fields=["user", "status", "-created_at", "-id"], name="memory_user_status_recent"),
            models.Index(fields=["user", "valid_from", "valid_until"], name="memory_user_validity"),
            models.Index(fields=["graph_sync_state"], name="memory_graph_sync"),
            # Recall's cue branch (the nearest by cues) for a user whose memories have few or no cues yet:
            # without it Postgres read all of the user's rows to find none (510 ms for a 100k-memory user).
            models.Index(fields=["user"], name="memory_user_cued", condition=Q(cue_embedding__isnull=False)),
            HnswIndex(
                name="memory_embedding_hnsw",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=["halfvec_cosine_ops"],
            ),
            HnswIndex(
                name="memory_cue_embedding_hnsw",
                fields=["cue_embedding"],
                m=16,
                ef_construction=64,
                opclasses=["halfvec_cosine_ops"],
            ),
            GinIndex(fields=["search_vector"], name="memory_search_vector"),
            GinIndex(fields=["content"], name="memory_content_trgm", opclasses=["gin_trgm_ops"]),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "content_key"],
                condition=Q(status="active", valid_until__isnull=True),
                name="memory_one_current_copy",
            ),
            models.CheckConstraint(condition=Q(importance__gte=0, importance__lte=1), name="memory_importance_0_1"),
            models.CheckConstraint(condition=Q(confidence__gte=0, confidence__lte=1), name="memory_confidence_0_1"),
        ]

    def __str__(self) -> str:
        return f"{self.kind}: {self.content[:60]}"

    @property
    def is_current(self) -> bool:
        return self.status == MemoryStatus.ACTIVE and self.valid_until is None

    @property
    def previous_version(self) -> Memory | None:
        """The version this one replaced, the latest where it replaced several (a chat chip shows "was: …")."""
        return max(self.supersedes.all(), key=lambda m: (m.valid_until or m.valid_from, m.pk), default=None)

    @property
    def replaced_by(self) -> Memory | None:
        """The version that replaced this one, if any (listings prefetch `superseded_by`)."""
        if self.valid_until is None:
            return None
        return min(self.superseded_by.all(), key=lambda m: m.valid_from, default=None)


class EventAction(models.TextChoices):
    CREATED = "created", _("Created")
    UPDATED = "updated", _("Updated")
    SUPERSEDED = "superseded", _("Superseded")
    MERGED = "merged", _("Merged")
    BOOSTED = "boosted", _("Boosted")
    ACCESSED = "accessed", _("Accessed")
    DEMOTED = "demoted", _("Importance lowered")
    PROMOTED = "promoted", _("Promoted to core")
    FORGOTTEN = "forgotten", _("Forgotten")
    RESTORED = "restored", _("Restored")
    DELETED = "deleted", _("Deleted")
    PURGED = "purged", _("Deleted permanently")
    EXPORTED = "exported", _("Exported")
    IMPORTED = "imported", _("Imported")


class Actor(models.TextChoices):
    USER = "user", _("You")
    EXTRACTOR = "extractor", _("Extraction")
    FORGETTING = "forgetting", _("Forgetting")
    API = "api", _("API")
    SYSTEM = "system", _("System")


class MemoryEvent(models.Model):
    """The audit trail: one row per change. Survives a permanent delete (memory set to NULL)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memory_events")
    memory = models.ForeignKey(Memory, null=True, blank=True, on_delete=models.SET_NULL, related_name="events")
    memory_ref = models.BigIntegerField(help_text="The memory's id, kept after a permanent delete.")
    action = models.CharField(max_length=16, choices=EventAction.choices)
    actor = models.CharField(max_length=16, choices=Actor.choices)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    note = models.CharField(max_length=200, blank=True, default="")
    # The program it came through (memoryapp/lib/clients.py: `app:<id>`, `token:<id>`; "" for the app's
    # own pages and jobs), taken from the request's context when the row is made (__init__).
    client = models.CharField(max_length=clients.MAX_LENGTH, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["user", "memory_ref", "created_at"], name="event_user_memory"),
            models.Index(fields=["user", "client", "created_at"], name="event_user_client", condition=~Q(client="")),
            # Read records older than ACCESS_RECORD_DAYS go nightly.
            models.Index(fields=["created_at"], name="event_read_age", condition=Q(action="accessed")),
        ]

    def __init__(self, *args, **kwargs):
        """A new row (made with keywords; Django loads stored rows positionally) names the program of the
        request it is made in, so that no write path has to pass it on (a callable default would tie the
        migrations to app code)."""
        if not args:
            kwargs.setdefault("client", clients.current_client())
        super().__init__(*args, **kwargs)


class QuestionStatus(models.TextChoices):
    OPEN = "open", _("Waiting for your answer")
    REPLACED = "replaced", _("Replaced")
    KEPT = "kept", _("Both kept")


class ChangeQuestion(models.Model):
    """Two current memories that may disagree (a change the extractor was unsure of, or the nightly
    reviewer found two values for one slot): the newer may replace the older. The user answers: replace,
    or keep both. Until then the chat cites the older only beside the newer."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="change_questions")
    older = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="questions_as_older")
    newer = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="questions_as_newer")
    slot = models.CharField(max_length=32, blank=True, default="")
    asked_by = models.CharField(max_length=16, choices=Actor.choices, default=Actor.EXTRACTOR)
    status = models.CharField(max_length=16, choices=QuestionStatus.choices, default=QuestionStatus.OPEN)
    created_at = models.DateTimeField(default=timezone.now)
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["user", "status"], name="question_user_status")]
        constraints = [models.UniqueConstraint(fields=["older", "newer"], name="question_once_per_pair")]

    def __str__(self) -> str:
        return f"#{self.newer_id} replaces #{self.older_id}? ({self.status})"


class MemorySettings(models.Model):
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memory_settings")
    memory_enabled = models.BooleanField(default=True)
    auto_extract = models.BooleanField(default=True)
    show_citations = models.BooleanField(default=True)
    extract_every_n_turns = models.PositiveSmallIntegerField(default=5)
    language = models.CharField(max_length=16, blank=True, default="")

    class Meta:
        verbose_name_plural = "memory settings"

    @classmethod
    def for_user(cls, user) -> MemorySettings:
        return cls.objects.get_or_create(user=user)[0]


class ApiToken(models.Model):
    """A personal Bearer token for the REST API. Only the sha256 of the secret is kept; it is shown once."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100)
    token_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.name

    @property
    def revoked(self) -> bool:
        return self.revoked_at is not None
