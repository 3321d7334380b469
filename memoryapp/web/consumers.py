"""One websocket per browser tab for `memory.*` events: the memories page, the graph page and the chat listen.

The page says what it shows when it subscribes, in the query string: the memories page sends the one its
view read (filters, search, `lang`), the chat page `conversation=<id>`, the memory graph page
`view=graph`. Each event arrives with the memory's id only (memoryapp/events.py); the consumer loads the
row and renders the templates the views use, as htmx out-of-band fragments the ws extension swaps: on the
memories page the card (replaced where shown, added at the top where the filters would list it, a
"changed elsewhere" mark on one being edited) and the counts; on the chat the "memory updated" line of
what this chat learnt, and its "Keeping in mind" list when the chat's working memory changes (`chat_state`);
on the graph page one mark naming the event and the memory, on which graph.js fetches the graph again.
"""

from __future__ import annotations

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.http import QueryDict
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _

from memoryapp.engine.chat_state import store as chat_state
from memoryapp.engine.errors import MemoryValidationError
from memoryapp.engine.memories import listing
from memoryapp.events import MemoryEventType, user_group
from memoryapp.models import EventAction, Memory, MemoryStatus
from memoryapp.web.forms import MemoryFilterForm

INSERTED = {MemoryEventType.CREATED, MemoryEventType.RESTORED}  # may join a list that did not show them
LEARNT = {MemoryEventType.CREATED, MemoryEventType.UPDATED}  # what the chat's "memory updated" line tells


def _language(query: QueryDict) -> str:
    try:
        return translation.get_supported_language_variant(query.get("lang", ""))
    except LookupError:
        return translation.get_language() or "en"


def _page_filter(query: QueryDict) -> listing.MemoryFilter | None:
    """What the memories page lists, read as its view reads it; None where a live card cannot tell whether
    it belongs (a search ranks its results, time travel shows the past, a bad filter shows nothing)."""
    form = MemoryFilterForm(query)
    try:
        flt = listing.MemoryFilter.with_range(**form.filter_values())
    except MemoryValidationError:
        return None
    return None if flt.q.strip() or flt.at else flt


def _graph_frame(kind: MemoryEventType, event: dict) -> str:
    """The graph page's mark: which event, about which memory (graph.js refetches; a purged id is simply gone)."""
    memory = event["id"] if isinstance(event.get("id"), int) else ""
    return f'<span id="graph-live" hx-swap-oob="true" hidden data-event="{kind.value}" data-memory="{memory}"></span>'


class MemoryEventsConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=4401)
            return
        query = QueryDict(self.scope.get("query_string", b"").decode(), mutable=True)
        self.language = _language(query)
        conversation = query.pop("conversation", [""])[-1]
        self.graph_view = query.pop("view", [""])[-1] == "graph"
        self.conversation_id = int(conversation) if conversation.isdigit() else None
        self.learnt: list[int] = []  # the chat's line counts these, newest last, until it is closed
        self.notice = ""  # the line last sent: an event that changes nothing in it sends nothing
        query.pop("lang", None)
        self.params = query.urlencode()
        self.filter = await database_sync_to_async(_page_filter)(query)
        self.group = user_group(user.pk)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def chat_notice_closed(self, event: dict) -> None:
        """The chat's "memory updated" line was closed (conversations.views.close_memory_notice): the next
        one counts afresh."""
        if event["conversation"] == self.conversation_id:
            self.learnt.clear()
            self.notice = ""

    async def chat_state(self, event: dict) -> None:
        """The chat's working memory changed (engine/chat_state/store.py: this tab, another, a program or the
        chat turn): a page showing the chat redraws its "Keeping in mind" list and count."""
        if event["conversation"] == self.conversation_id:
            await self.send(await database_sync_to_async(self._state_frame)())

    def _state_frame(self) -> str:
        user_id = self.scope["user"].pk
        try:
            entries = chat_state.entries(user_id, chat_state.chat_session(self.conversation_id))
        except chat_state.ChatStateUnavailable:
            entries, unavailable = [], True
        else:
            unavailable = False
        context = {
            "conversation_id": self.conversation_id,
            "state_entries": entries,
            "state_unavailable": unavailable,
            "csrf_token": self.scope.get("cookies", {}).get("csrftoken", ""),
            "oob": True,
        }
        with translation.override(self.language):
            return render_to_string("conversations/_chat_state_list.html", context) + render_to_string(
                "conversations/_chat_state_count.html", context
            )

    async def _memory_event(self, event: dict) -> None:
        if self.graph_view:
            await self.send(_graph_frame(MemoryEventType(event["type"]), event))
            return
        render = self._chat_frame if self.conversation_id else self._page_frame
        frame = await database_sync_to_async(render)(MemoryEventType(event["type"]), event)
        if frame:
            await self.send(frame)

    # One handler per event type, named by MemoryEventType.handler (CREATED arrives at memory_created).
    memory_created = memory_updated = memory_deleted = memory_forgotten = memory_restored = _memory_event
    memory_purged = memory_batch = _memory_event

    async def memory_progress(self, event: dict) -> None:
        """A long job's progress, on the memories page: its bar and a line saying how far; then its report."""
        if self.conversation_id or self.graph_view:
            return
        context = {**event, "next": f"{reverse('memories')}?{self.params}" if self.params else reverse("memories")}
        if event.get("state"):  # the last one: the job as the report shows it
            context["finished"] = {
                "status": event["state"],
                "total": event["total"],
                "imported": event.get("imported", 0),
                "duplicates": event.get("duplicates", 0),
            }
        with translation.override(self.language):
            await self.send(render_to_string("memoryapp/_import_progress.html", context))

    def _memory(self, memory_id: int | None) -> Memory | None:
        if memory_id is None:
            return None
        return (
            Memory.objects.filter(pk=memory_id, user=self.scope["user"])
            .select_related("source_conversation")
            .prefetch_related("superseded_by", "supersedes")
            .first()
        )

    def _page_frame(self, kind: MemoryEventType, event: dict) -> str:
        user = self.scope["user"]
        memory = None if kind == MemoryEventType.PURGED else self._memory(event["id"])
        context = {
            "event": kind.value,
            "memory_id": event["id"],
            "m": memory,
            "stats": listing.stats(user),
            "next": f"{reverse('memories')}?{self.params}" if self.params else reverse("memories"),
            "csrf_token": self.scope.get("cookies", {}).get("csrftoken", ""),
            "params": self.params,
        }
        if kind == MemoryEventType.PURGED:
            context["purged"] = True
        elif kind == MemoryEventType.BATCH:
            context.update(count=event["count"], imported=event["action"] == EventAction.IMPORTED)
        if memory is not None:
            context["card_if"] = f"#memory-{memory.pk}:not(.editing)"
            if kind in INSERTED and self._lists(memory):
                # Not where it is shown already, nor where the version it replaces is being edited (that
                # edit's own reply brings it, and a live copy would race it).
                shown = [f"#memory-{memory.pk}"] + [f"#memory-{old.pk}.editing" for old in memory.supersedes.all()]
                context["insert_if"] = f"#memory-list:not(:has({', '.join(shown)}))"
        with translation.override(self.language):
            return render_to_string("memoryapp/_live_memory.html", context)

    def _lists(self, memory: Memory) -> bool:
        """Would the page's own view list this memory?"""
        if self.filter is None:
            return False
        return listing.filtered(self.scope["user"], self.filter).filter(pk=memory.pk).exists()

    def _chat_frame(self, kind: MemoryEventType, event: dict) -> str:
        if kind not in LEARNT:
            return ""
        memory = self._memory(event["id"])
        if (
            memory is None
            or memory.source_conversation_id != self.conversation_id
            or memory.status != MemoryStatus.ACTIVE
            or not memory.is_current
        ):
            return ""
        if memory.pk in self.learnt:  # an update of one already counted counts once, as the newest
            self.learnt.remove(memory.pk)
        self.learnt.append(memory.pk)
        count = len(self.learnt)
        with translation.override(self.language):
            lead = (
                _("{count} memories updated, the latest:").replace("{count}", str(count))
                if count > 1
                else _("Memory updated:")
            )
            notice = render_to_string(
                "conversations/_memory_notice.html",
                {"m": memory, "count": count, "lead": lead, "conversation_id": self.conversation_id},
            )
        if notice == self.notice:
            return ""
        self.notice = notice
        return f'<div id="notices" hx-swap-oob="innerHTML">{notice}</div>'
