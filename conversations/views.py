"""The chat page and its small POST endpoints; the turn itself runs over the websocket (consumers.py)."""

from __future__ import annotations

import logging

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_POST

from memoryapp import events
from memoryapp.engine.chat import chat, chat_end
from memoryapp.engine.chat_state import slots, store
from memoryapp.engine.errors import MemoryConflict
from memoryapp.engine.learning.remember import remember_message
from memoryapp.engine.memories.write import delete_memory, revert_memory
from memoryapp.engine.memories.write import restore_memory as restore
from memoryapp.models import Memory, MemorySettings

from . import services
from .forms import ChatStateEntryForm, NewChatForm, RenameForm
from .models import Conversation, Message

logger = logging.getLogger(__name__)


def _owned(request: HttpRequest, conversation_id: int) -> Conversation:
    # Another user's id is indistinguishable from a missing one: 404.
    return get_object_or_404(Conversation, pk=conversation_id, user=request.user)


def _chat_page(request: HttpRequest, conversation: Conversation, status: int = 200, **state) -> HttpResponse:
    """The chat page; `state`: what the "Keeping in mind" panel's form that failed says (`_state_panel`)."""
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
            **_state_panel(request, conversation, **state),
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


# The chat's "Keeping in mind" panel (templates/conversations/_chat_state.html): its working memory
# (engine/chat_state/store.py), edited by hand. With htmx each form answers with the panel's body, its error
# sentence in the form; without JavaScript it posts, and comes back to the chat, or to the chat page with the
# error (400). Every change also redraws the panel in the chat's other tabs (memoryapp/web/consumers.py).


def _state_panel(
    request: HttpRequest, conversation: Conversation, error: str = "", form_for: str = "", **typed
) -> dict:
    """The panel's context: the entries, or that Redis is down; the form that answered (Add stays open for
    the next one), its error and what was typed there."""
    try:
        entries = store.entries(request.user.pk, store.chat_session(conversation.pk))
    except store.ChatStateUnavailable:
        entries, unavailable = [], True
    else:
        unavailable = False
    if form_for not in ("", "add") and form_for not in {entry.key for entry in entries}:
        form_for = "list"  # an edit of an entry gone meanwhile: its error shows under the list
    return {
        "conversation_id": conversation.pk,
        "state_entries": entries,
        "state_unavailable": unavailable,
        "state_slots": [(key, str(label)) for key, label in slots.LABELS.items()],
        "state_error": error,
        "state_form_for": form_for if error else "",
        "state_adding": form_for == "add",
        "state_typed": typed,
    }


def _state_answer(request: HttpRequest, conversation: Conversation, **state) -> HttpResponse:
    if request.htmx:
        # Always 200: htmx swaps only 2xx by default, and an error is meant to be shown in its form.
        context = {**_state_panel(request, conversation, **state), "fragment": True}
        return render(request, "conversations/_chat_state_body.html", context)
    if state.get("error"):
        return _chat_page(request, conversation, status=400, **state)
    return redirect(reverse("conversation", args=[conversation.pk]) + "#chat-state")


def _state_error(exc: store.ChatStateInvalid) -> str:
    """The store's refusal as a sentence in the page's language (the store's own is for programs)."""
    if exc.field == "key":  # the key was checked by the form: what is left is the cap on entries
        return _("This chat keeps at most %(count)s entries: remove one first.") % {
            "count": settings.WORKING_MEMORY_MAX_ENTRIES
        }
    return _("That is more than this chat can keep in mind: shorten it, or remove an entry first.")


UNAVAILABLE = gettext_lazy("Not available right now.")  # Redis is down: the chat goes on without it


@login_required
@require_POST
def chat_state_put(request: HttpRequest, conversation_id: int) -> HttpResponse:
    """Add an entry (Add) or change one (Edit): the value as typed, stored as JSON where it reads as JSON."""
    current = _owned(request, conversation_id)
    form = ChatStateEntryForm(request.POST)
    typed = {"key": request.POST.get("key", ""), "value": request.POST.get("value", "")}
    form_for = "add" if request.POST.get("form") == "add" else typed["key"].strip()
    if not form.is_valid():
        error = " ".join(message for messages in form.errors.values() for message in messages)
        return _state_answer(request, current, error=error, form_for=form_for, **typed)
    try:
        store.put(
            request.user.pk,
            store.chat_session(current.pk),
            {form.cleaned_data["key"]: form.cleaned_data["value"]},
            by="you",
        )
    except store.ChatStateInvalid as exc:
        return _state_answer(request, current, error=_state_error(exc), form_for=form_for, **typed)
    except store.ChatStateUnavailable:
        return _state_answer(request, current, error=str(UNAVAILABLE), form_for=form_for, **typed)
    return _state_answer(request, current, form_for=form_for)


@login_required
@require_POST
def chat_state_remove(request: HttpRequest, conversation_id: int) -> HttpResponse:
    """Remove one entry (gone already: nothing to do)."""
    current = _owned(request, conversation_id)
    try:
        store.remove(request.user.pk, store.chat_session(current.pk), request.POST.get("key", ""))
    except store.ChatStateUnavailable:
        return _state_answer(request, current, error=str(UNAVAILABLE), form_for="list")
    return _state_answer(request, current)


@login_required
@require_POST
def chat_state_clear(request: HttpRequest, conversation_id: int) -> HttpResponse:
    """Clear all (asked first in the page): the chat keeps nothing in mind until it learns again."""
    current = _owned(request, conversation_id)
    try:
        store.clear(request.user.pk, store.chat_session(current.pk))
    except store.ChatStateUnavailable:
        return _state_answer(request, current, error=str(UNAVAILABLE), form_for="list")
    return _state_answer(request, current)
