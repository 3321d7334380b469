"""The chat websocket: one turn at a time, in the order sent, the reply streamed as htmx out-of-band fragments.

The turn's logic lives in memoryapp.engine.chat.chat; this edge authorises, runs the model's blocking
stream in a worker thread, renders frames, and honours "stop".
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor

from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.html import escape
from django.utils.translation import gettext as _

from memoryapp.engine.chat import chat, chat_end
from memoryapp.engine.chat.citations import MarkerStream, Piece
from memoryapp.providers.llm import ProviderError

from . import services
from .models import Conversation, Role
from .streaming import iterate_in_thread
from .templatetags.chat import inline_chip

logger = logging.getLogger(__name__)


_turn_pool: ThreadPoolExecutor | None = None


def _off_shared_thread(function):
    """The turn's heavy parts (recall embeds the query) in a pool thread of their own. On Channels'
    one shared sync thread they queued every other socket's session lookup behind them: under load
    new chat sockets timed out at the handshake (bench/load.py, docs/benchmarks/speed.md). The pool is small
    (CHAT_TURN_THREADS): more threads running Python at once only take the GIL from each other and from
    the threads that serve sockets, which then wait for it after every database round trip."""
    global _turn_pool
    if _turn_pool is None:
        _turn_pool = ThreadPoolExecutor(max_workers=settings.CHAT_TURN_THREADS, thread_name_prefix="chat-turn")
    return database_sync_to_async(function, thread_sensitive=False, executor=_turn_pool)


def _language(scope: dict) -> str:
    query = scope.get("query_string", b"").decode()
    for part in query.split("&"):
        if part.startswith("lang="):
            try:
                return translation.get_supported_language_variant(part[5:])
            except LookupError:
                break
    return translation.get_language() or "en"


_leaving: set[asyncio.Task] = set()  # held here: the loop keeps only weak references to its tasks


def _leave_later(conversation_id: int) -> None:
    """The chat's last tab left: after CHAT_TAB_GRACE_SECONDS, unless a tab shows it again (a reload is
    back within a second or two), a temporary chat is discarded and a kept one ends (engine/chat/chat_end.py).
    Should the server stop meanwhile, the idle sweep ends the chat and the daily purge drops a temporary one."""

    async def leave() -> None:
        await asyncio.sleep(settings.CHAT_TAB_GRACE_SECONDS)
        try:
            await database_sync_to_async(chat_end.leave_chat)(conversation_id)
        except Exception:  # the database being down: the idle sweep catches up
            logger.exception("could not end conversation %s after its tab left", conversation_id)

    task = asyncio.create_task(leave())
    _leaving.add(task)
    task.add_done_callback(_leaving.discard)


class ChatConsumer(AsyncJsonWebsocketConsumer):
    # The reply streams straight down this socket; nothing reaches it through the channel layer. Without
    # this, every chat socket also listened on Redis, and a Redis restart closed it mid-reply (1011).
    # get_channel_layer() answers None for an alias that is not configured.
    channel_layer_alias = None

    async def connect(self) -> None:
        user = self.scope.get("user")
        conversation_id = self.scope["url_route"]["kwargs"]["conversation_id"]
        if user is None or not user.is_authenticated:
            await self.close(code=4401)
            return
        self.conversation = await self._load(conversation_id, user)
        if self.conversation is None:  # missing or someone else's: the same answer
            await self.close(code=4404)
            return
        self.language = _language(self.scope)
        self.turns: list[asyncio.Task] = []  # the turn running now, then those sent meanwhile, in order
        self.shown = await self._tab_count(chat_end.tab_opened) is not None  # counted by the time it is open
        await self.accept()

    async def disconnect(self, code: int) -> None:
        for task in getattr(self, "turns", []):
            task.cancel()
        if getattr(self, "shown", False) and await self._tab_count(chat_end.tab_closed) == 0:
            _leave_later(self.conversation.pk)

    async def _tab_count(self, change) -> int | None:
        """Count this tab in or out (the count is in the cache); None while Redis is down: the chat works
        uncounted, and the idle sweep ends it in the end."""
        try:
            return await sync_to_async(change, thread_sensitive=False)(self.conversation.pk)
        except Exception:
            logger.warning("could not count the tabs of conversation %s", self.conversation.pk, exc_info=True)
            return None

    @database_sync_to_async
    def _load(self, conversation_id: int, user) -> Conversation | None:
        return Conversation.objects.select_related("user").filter(pk=conversation_id, user=user).first()

    async def receive_json(self, content: dict, **kwargs) -> None:
        action = content.get("action") or "send"
        self.turns = [task for task in self.turns if not task.done()]
        if action == "stop":
            if self.turns:
                self.turns[0].cancel()  # the reply streaming now; what was sent after it still goes
            return
        text = None if action == "retry" else str(content.get("text", ""))
        # A message sent while the last reply still streams or is being saved waits for it, in order.
        # Refusing it lost what the user had typed: the composer clears on send.
        earlier = self.turns[-1] if self.turns else None
        self.turns.append(asyncio.create_task(self._turn_after(earlier, text)))

    async def _turn_after(self, earlier: asyncio.Task | None, text: str | None) -> None:
        if earlier is not None:
            await asyncio.wait([earlier])  # returns however it ended: stopped, failed or done
        await self._turn(text)

    async def _turn(self, text: str | None) -> None:
        with translation.override(self.language):
            try:
                turn = await _off_shared_thread(chat.start_turn)(self.conversation, text)
            except chat.ChatInputError as exc:
                await self._status(exc.message)
                return
            except Exception:  # the database restarting, say: a task's error would otherwise vanish unseen
                logger.exception("chat turn in conversation %s could not start", self.conversation.pk)
                await self._status(_("Your message could not be handled right now. Try again in a moment."))
                return
            turn_id = turn.user_message.pk
            context = {"conversation": self.conversation, "show_citations": turn.prefs.show_citations}
            user_html = (
                ""
                if text is None
                else render_to_string("conversations/_message.html", {**context, "m": turn.user_message})
            )
            first, sidebar = await _off_shared_thread(self._first_turn)() if text is not None else (False, None)
            await self.send(
                render_to_string(
                    "conversations/_pending.html",
                    {
                        "turn_id": turn_id,
                        "user_html": user_html,
                        "retry": text is None,
                        "first": first,
                        "conversation": self.conversation,
                        "sidebar": sidebar,
                    },
                )
            )
            await self._stream(turn, turn_id, context)

    def _first_turn(self) -> tuple[bool, list[Conversation] | None]:
        """Whether this is the chat's first message (only then is the empty chat's placeholder on the page
        to remove) and, if so, the sidebar's chats: with its first message (and so its title) it joins them."""
        if self.conversation.messages.filter(role=Role.USER).count() != 1:
            return False, None
        if self.conversation.temporary:
            return True, None
        return True, list(services.listed_conversations(self.conversation.user))

    async def _stream(self, turn: chat.Turn, turn_id: int, context: dict) -> None:
        parts: list[str] = []
        stopped = False
        # A model's markers ("[1]") arrive as its chips, in place, even when split across deltas.
        markers = MarkerStream(len(turn.recalled)) if turn.numbered else None
        try:
            # The model's stream blocks on the network: read in a thread of its own (streaming.py).
            async for delta in iterate_in_thread(lambda: chat.stream_reply(turn)):
                parts.append(delta)
                await self._append(turn, turn_id, markers.feed(delta) if markers else [delta], context)
            if markers:
                await self._append(turn, turn_id, markers.close(), context)
        except asyncio.CancelledError:
            stopped = True
        except ProviderError as exc:
            logger.warning("chat turn %s failed: %s", turn_id, exc.message)
            await self._error(turn_id, exc)
            return
        try:
            message = await _off_shared_thread(chat.finish_turn)(turn, "".join(parts))
            if message is None and not stopped:
                # An empty answer used to vanish without a word; the user must see it failed and can retry.
                await self._error(turn_id, ProviderError("The language model returned an empty reply.", retryable=True))
                return
            if message is None:
                await self.send(f'<div id="pending-{turn_id}" hx-swap-oob="delete"></div>')
                return
            message = await _off_shared_thread(services.message_for_page)(message.pk)
            await self.send(
                render_to_string(
                    "conversations/_message.html",
                    {**context, "m": message, "swap_target": f"pending-{turn_id}", "stopped": stopped},
                )
            )
        except Exception:
            logger.exception("could not save the reply to message %s", turn_id)
            await self._status(_("The reply could not be saved."))

    async def _append(self, turn: chat.Turn, turn_id: int, pieces: list[Piece], context: dict) -> None:
        """Text escaped, a marked memory as its chip (nothing where citations are hidden)."""
        html = "".join(
            escape(piece)
            if isinstance(piece, str)
            else inline_chip(turn.recalled[piece - 1].memory, piece)
            if context["show_citations"]
            else ""
            for piece in pieces
        )
        if html:
            await self.send(f'<div id="pending-{turn_id}-body" hx-swap-oob="beforeend">{html}</div>')

    async def _error(self, turn_id: int, exc: ProviderError) -> None:
        if exc.retryable:
            headline = _("The model is down or too slow to answer right now.")
        else:
            headline = _("The model could not answer this message.")
        await self.send(
            render_to_string(
                "conversations/_error.html", {"turn_id": turn_id, "headline": headline, "detail": exc.message}
            )
        )

    async def _status(self, text: str) -> None:
        await self.send(
            f'<div id="turn-status" hx-swap-oob="innerHTML"><p class="turn-status" role="alert">'
            f"{escape(text)}</p></div>"
        )
