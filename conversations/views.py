"""The chat page and its small POST endpoints; the turn itself runs over the websocket (consumers.py)."""

from __future__ import annotations

import logging

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from memoryapp import events
from memoryapp.engine.chat import chat, chat_end
from memoryapp.engine.errors import MemoryConflict
from memoryapp.engine.learning.remember import remember_message
from memoryapp.engine.memories.write import delete_memory, revert_memory
from memoryapp.engine.memories.write import restore_memory as restore
from memoryapp.models import Memory, MemorySettings

from . import services
from .forms import NewChatForm, RenameForm
from .models import Conversation, Message

logger = logging.getLogger(__name__)


def _owned(request: HttpRequest, conversation_id: int) -> Conversation:
    # Another user's id is indistinguishable from a missing one: 404.
    return get_object_or_404(Conversation, pk=conversation_id, user=request.user)


def _chat_page(request: HttpRequest, conversation: Conversation, status: int = 200) -> HttpResponse:
    query = request.GET.get("q", "")
    prefs = MemorySettings.for_user(request.user)
    return render(
        request,
        "conversations/chat.html",
        {
            "conversation": conversation,
            "messages_list": services.page_messages(conversation),
            "conversations": services.listed_conversations(request.user, query),
            "q": query,
            "show_citations": prefs.show_citations,
            "memory_enabled": prefs.memory_enabled,
            "unanswered": chat.unanswered_message(conversation),
            "rename_form": RenameForm(initial={"title": conversation.title}),
        },
        status=status,
    )


def _end_other_chats(request: HttpRequest, current: Conversation) -> None:
    """Moving to another chat ends the ones that no tab shows: their last turns are learnt from. One still
    shown in a tab ends when that tab leaves it (engine/chat/chat_end.py, conversations/consumers.py)."""
    try:
        chat_end.end_chats(chat_end.other_open_chats(request.user.pk, keep=current.pk))
    except Exception:  # the cache being down must not keep the user from their chat; the idle sweep catches up
        logger.exception("could not end the other chats of user %s", request.user.pk)


@login_required
@require_GET
def home(request: HttpRequest) -> HttpResponse:
    """A fresh chat at `/`; the page gives it its own address (/c/<id>/) once its first message is sent
    (chat.js), so reloading it, going back to it or bookmarking it finds the chat, not a new one."""
    fresh = services.fresh_conversation(request.user)
    _end_other_chats(request, fresh)
    return _chat_page(request, fresh)


@login_required
@require_GET
def conversation(request: HttpRequest, conversation_id: int) -> HttpResponse:
    current = _owned(request, conversation_id)
    services.discard_temporary(request.user, keep=current.pk)
    _end_other_chats(request, current)
    return _chat_page(request, current)


@login_required
@require_GET
def conversation_list(request: HttpRequest) -> HttpResponse:
    """The sidebar list filtered by title (the search box swaps it in with htmx)."""
    query = request.GET.get("q", "")
    current = request.GET.get("current")
    return render(
        request,
        "conversations/_list.html",
        {
            "conversations": services.listed_conversations(request.user, query),
            "conversation": Conversation(pk=int(current)) if current and current.isdigit() else None,
            "q": query,  # an empty result says "no chats match", not "no chats yet"
        },
    )


@login_required
@require_POST
def new(request: HttpRequest) -> HttpResponse:
    form = NewChatForm(request.POST)
    temporary = form.is_valid() and form.cleaned_data["temporary"]
    fresh = services.fresh_conversation(request.user, temporary=temporary)
    _end_other_chats(request, fresh)
    return redirect("conversation", conversation_id=fresh.pk)


@login_required
@require_POST
def rename(request: HttpRequest, conversation_id: int) -> HttpResponse:
    current = _owned(request, conversation_id)
    form = RenameForm(request.POST)
    if not form.is_valid():
        return _chat_page(request, current, status=400)
    current.title = form.cleaned_data["title"]
    current.save(update_fields=["title", "updated_at"])
    return redirect("conversation", conversation_id=current.pk)


@login_required
@require_POST
def delete(request: HttpRequest, conversation_id: int) -> HttpResponse:
    _owned(request, conversation_id).delete()
    return redirect("home")


@login_required
@require_POST
def remember(request: HttpRequest, conversation_id: int, message_id: int) -> HttpResponse:
    """ "Remember this": save what the message says now (engine/learning/remember.py), or say why not, in place."""
    current = _owned(request, conversation_id)
    message = get_object_or_404(Message, pk=message_id, conversation=current)
    # Always 200: htmx swaps only 2xx by default, and the sentence is meant to be shown either way.
    return render(
        request, "conversations/_remembered.html", {"conversation": current, "remembered": remember_message(message)}
    )


@login_required
@require_POST
def undo_memory(request: HttpRequest, conversation_id: int, memory_id: int) -> HttpResponse:
    """Undo a memory learnt in this chat (its "memory updated" line): soft delete, and what it superseded
    becomes current again. Answers the plain line that replaces the notice; always 200, as htmx swaps 2xx."""
    _owned(request, conversation_id)
    memory = get_object_or_404(Memory, pk=memory_id, user=request.user)
    try:
        revert_memory(memory)
    except MemoryConflict:
        plain = "failed"
    else:
        plain = "undone"
    return render(
        request,
        "conversations/_memory_notice.html",
        {"plain": plain, "memory_id": memory.pk, "conversation_id": conversation_id},
    )


@login_required
@require_POST
def close_memory_notice(request: HttpRequest, conversation_id: int) -> HttpResponse:
    """The "memory updated" line was closed: the chat's memory events count afresh (memoryapp/web/consumers.py)."""
    conversation = _owned(request, conversation_id)
    events.publish_notice_closed(request.user.pk, conversation.pk)
    return HttpResponse("")  # htmx removes the line (hx-swap="delete")


def _memory_action(request: HttpRequest, conversation: Conversation, memory: Memory, error: str = "") -> HttpResponse:
    # Always 200: htmx swaps only 2xx by default, and an error is meant to be shown in place.
    return render(
        request, "conversations/_memory_action.html", {"conversation": conversation, "memory": memory, "error": error}
    )


@login_required
@require_POST
def forget_memory(request: HttpRequest, conversation_id: int, memory_id: int) -> HttpResponse:
    """Forget one memory from the chat (the one picked when several matched, or undoing "Remember this"):
    a soft delete through the write path, audited and live like every other."""
    current = _owned(request, conversation_id)
    memory = get_object_or_404(Memory, pk=memory_id, user=request.user)
    return _memory_action(request, current, delete_memory(memory, note="forgotten in a chat").memory)


@login_required
@require_POST
def restore_memory(request: HttpRequest, conversation_id: int, memory_id: int) -> HttpResponse:
    """Undo a forget in the chat: the memory is active again."""
    current = _owned(request, conversation_id)
    memory = get_object_or_404(Memory, pk=memory_id, user=request.user)
    try:
        memory = restore(memory).memory
    except MemoryConflict as exc:
        return _memory_action(request, current, memory, exc.message)
    return _memory_action(request, current, memory)


@login_required
@require_POST
def revert_memory_in_chat(request: HttpRequest, conversation_id: int, memory_id: int) -> HttpResponse:
    """Undo "Remember this": the memory goes, and what it replaced is current again."""
    current = _owned(request, conversation_id)
    memory = get_object_or_404(Memory, pk=memory_id, user=request.user)
    try:
        memory = revert_memory(memory).memory
    except MemoryConflict as exc:
        return _memory_action(request, current, memory, exc.message)
    return _memory_action(request, current, memory)
