"""Conversations and messages; a reply keeps the memories it was handed with their scores, each marked
used (cited: a chip) or only offered."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

MAX_TITLE_LENGTH = 200
MAX_MESSAGE_CHARS = 20_000  # a message the chat takes, or a turn another program sends to learn from


class Conversation(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="conversations")
    title = models.CharField(max_length=MAX_TITLE_LENGTH, blank=True, default="")
    temporary = models.BooleanField(default=False)
    ended_at = models.DateTimeField(null=True, blank=True)
    # The rolling summary of the turns that no longer fit the model's window (engine/chat/compaction.py),
    # and the last message it covers; the prompt carries the summary in their place.
    summary = models.TextField(blank=True, default="")
    summary_until = models.BigIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at", "-id"]
        indexes = [models.Index(fields=["user", "temporary", "updated_at"], name="conversation_user_recent")]

    def __str__(self) -> str:
        return self.title or f"Conversation {self.pk}"


class Role(models.TextChoices):
    USER = "user", _("User")
    ASSISTANT = "assistant", _("Assistant")
    SYSTEM = "system", _("System")


class Message(models.Model):
    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="messages")
    role = models.CharField(max_length=16, choices=Role.choices)
    content = models.TextField()
    token_count = models.PositiveIntegerField(default=0)
    cited_memories = models.ManyToManyField("memoryapp.Memory", through="Citation", related_name="cited_by")
    # A turn about memory itself ("what do you remember about me?", "forget that I live in Berlin"),
    # engine/chat/memory_commands.py: on the user's message {"intent": ...}; on the reply also its "outcome" and
    # the "memory_ids" it listed, forgot or asks about. Such turns are never learnt from.
    memory_command = models.JSONField(null=True, blank=True, default=None)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]

    @property
    def used_citations(self) -> list[Citation]:
        """The memories the reply used: its chips (read from prefetched citations where there are some)."""
        return [c for c in self.citations.all() if c.used]


class Citation(models.Model):
    message = models.ForeignKey(Message, on_delete=models.CASCADE, related_name="citations")
    memory = models.ForeignKey("memoryapp.Memory", on_delete=models.CASCADE, related_name="citations")
    score = models.FloatField()
    rank = models.PositiveSmallIntegerField()  # its place in what the reply was handed: a model saw it as [rank]
    # True: the reply used it (a model marked [rank]; an offline reply uses all it was given). False: it
    # was offered to the model and not used: kept for the record, never shown as a chip.
    used = models.BooleanField(default=True)

    class Meta:
        ordering = ["rank"]
        constraints = [models.UniqueConstraint(fields=["message", "memory"], name="citation_once_per_message")]
