"""Conversation housekeeping shared by the pages, the API and the consumer."""

from __future__ import annotations

from datetime import timedelta

from django.db.models import Exists, OuterRef, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from memoryapp.engine.chat.chat_end import open_in_tabs
from memoryapp.engine.memories.validation import SECRET_NAMES, has_nul
from memoryapp.engine.sensitive import find_secret
from memoryapp.models import Memory

from .models import Conversation, Message

TEMPORARY_TTL = timedelta(hours=24)


def listed_conversations(user, query: str = "") -> QuerySet[Conversation]:
    """What the sidebar and the API list: kept (not temporary) chats with at least one message."""
    has_messages = Exists(Message.objects.filter(conversation=OuterRef("pk")))
    conversations = Conversation.objects.filter(user=user, temporary=False).filter(has_messages)
    query = query.strip()
    if has_nul(query):  # no title holds one, and Postgres refuses it in a pattern
        return conversations.none()
    if query:
        conversations = conversations.filter(title__icontains=query)
    return conversations


def fresh_conversation(user, *, temporary: bool = False) -> Conversation:
    """An empty chat to type into: reuse an empty one of the user's rather than pile them up, but not one
    that another tab shows (two tabs typing into one chat would each see only half of it)."""
    discard_temporary(user)
    if not temporary:
        empty = list(
            Conversation.objects.filter(user=user, temporary=False, messages__isnull=True).values_list("pk", flat=True)[
                :20
            ]
        )
        shown = open_in_tabs(empty)
        free = next((pk for pk in empty if pk not in shown), None)
        if free is not None:
            return Conversation.objects.get(pk=free)
    return Conversation.objects.create(user=user, temporary=temporary)


def discard_temporary(user, *, keep: int | None = None) -> int:
    """The user's temporary chats that no tab shows any more are gone (each is discarded when its own tab
    leaves it, engine/chat/chat_end.py; this catches one whose leaving was never seen, say across a restart)."""
    doomed = list(Conversation.objects.filter(user=user, temporary=True).exclude(pk=keep).values_list("pk", flat=True))
    shown = open_in_tabs(doomed)
    return (
        Conversation.objects.filter(pk__in=[pk for pk in doomed if pk not in shown])
        .delete()[1]
        .get("conversations.Conversation", 0)
    )


def purge_temporary(now=None) -> int:
    """Delete temporary chats older than 24 h (scheduled by the pipeline's beat); returns how many."""
    cutoff = (now or timezone.now()) - TEMPORARY_TTL
    return (
        Conversation.objects.filter(temporary=True, created_at__lt=cutoff)
        .delete()[1]
        .get("conversations.Conversation", 0)
    )


def page_messages(conversation: Conversation) -> QuerySet[Message]:
    """Messages with their citations (and each cited memory's source chat) in one go."""
    return conversation.messages.prefetch_related(
        "citations__memory__source_conversation", "citations__memory__supersedes"
    ).order_by("created_at", "id")


def message_for_page(message_id: int) -> Message:
    message = Message.objects.prefetch_related(
        "citations__memory__source_conversation", "citations__memory__supersedes"
    ).get(pk=message_id)
    message.commanded_memories = command_memories(message)
    return message


def command_memories(message: Message) -> list[Memory]:
    """The memories a reply to a memory command forgot or asks about, in its order, the chat owner's only
    (engine/chat/memory_commands.py); the chat shows Undo or a choice beside each."""
    command = message.memory_command or {}
    if command.get("outcome") not in ("forgot", "ask"):
        return []
    ids = command.get("memory_ids") or []
    found = Memory.objects.filter(pk__in=ids, user__conversations=message.conversation_id).in_bulk()
    return [found[pk] for pk in ids if pk in found]


def withheld_note(message: Message) -> str:
    """For a user's message that holds a secret: the one line the chat says about it (the extractor drops
    it silently; without a word the user may believe it was kept), on the page and in the REST turn. ""
    for any other message."""
    if message.role != "user" or message.memory_command:
        return ""
    kind = find_secret(message.content)
    if kind is None:
        return ""
    return _("I won't keep %(secret)s: passwords, keys, card and ID numbers are never stored.") % {
        "secret": SECRET_NAMES[kind]
    }
