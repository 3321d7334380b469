"""The chat turn (DESIGN flow 1): save the user message, recall, build the prompt, save the reply.

The consumer streams and the REST API answers in one piece; both go through `start_turn` and
`finish_turn`, so memory, citations and the extraction cadence behave the same everywhere. Every few turns
the saved message queues an extraction through the job seam (engine/jobs.py); benchmarks pass their own
`enqueue_extraction`. The turn's model is `start_turn`'s `llm=` (default: the configured one; None: no
model, engine/llm/replies.py then says so), kept on the Turn for the reply. A turn about memory itself
("what do you remember about me?", "forget that ...") is answered by engine/chat/memory_commands.py instead of
the model, and is never learnt from nor put in a later prompt.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from conversations.models import MAX_MESSAGE_CHARS, Citation, Conversation, Message, Role
from memoryapp.models import MemorySettings

from ..chat_state import rules, trailer
from ..chat_state import store as chat_state
from ..chat_state.store import Entry
from ..learned import relevance
from ..learned.model import usable
from ..learning.extraction import EnqueueExtraction, on_user_turn
from ..llm import CONFIGURED, ModelChoice, replies, resolve
from ..llm.delimiters import format_earlier_block
from ..memories import conflicts
from ..memories.validation import has_nul
from ..recall import access
from ..recall.recipes import RECALL_CHAT, RECALL_CHAT_CANDIDATES, RECALL_CHAT_GENERAL
from ..text import count_tokens
from . import chat_end, citations, compaction, memory_commands, offer
from .chat_query import ChatQuery, chat_recall_query
from .context import Budget, build_messages, fit_memories, memories_block

if TYPE_CHECKING:
    from memoryapp.graph.port import GraphPort
    from memoryapp.providers.embeddings.base import Embedder
    from memoryapp.providers.llm.base import LLMProvider

    from ..recall.recall import RecalledMemory

logger = logging.getLogger(__name__)

TITLE_CHARS = 60
WINDOW_TOKENS = 8192


class ChatInputError(ValueError):
    """The user's message cannot be sent as it is; `message` is one readable sentence."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


@dataclass
class Turn:
    conversation: Conversation
    user_message: Message
    prompt: list[dict]
    recalled: list[RecalledMemory] = field(default_factory=list)
    memory_used: bool = False  # False: memory off or temporary chat, nothing was recalled
    prefs: MemorySettings | None = None  # the user's settings, read once per turn
    recall_ms: float = 0.0  # recall inside this turn, the query's embedding included
    command: memory_commands.Command | None = None  # a turn about memory itself: answered without the model
    answer: memory_commands.CommandReply | None = None
    llm: LLMProvider | None = None  # the model that replies; None: no model is configured
    # True: memories were handed as to a model (offer.py): numbered, and the reply's markers say which it
    # used (citations.py). False: the offline choice, every one of them cited.
    numbered: bool = False
    memory_tokens: int = 0  # what the memories block cost in the prompt (engine/text.py count_tokens)
    # The chat's working memory (engine/chat_state): False while Redis is down (the turn goes on without it);
    # `keeps_state`: the reply ends with a trailer line that updates it (a model's turn), cut before it is
    # shown; `trailer` holds what the stream cut.
    state_available: bool = True
    keeps_state: bool = False
    trailer: str = ""


def uses_memory(conversation: Conversation, prefs: MemorySettings | None = None) -> bool:
    if conversation.temporary:
        return False
    prefs = prefs or MemorySettings.objects.get_or_create(user_id=conversation.user_id)[0]
    return prefs.memory_enabled


def start_turn(
    conversation: Conversation,
    text: str | None = None,
    *,
    enqueue_extraction: EnqueueExtraction | None = None,
    now: datetime | None = None,
    llm: ModelChoice = CONFIGURED,
    embedder: Embedder | None = None,
    graph: GraphPort | None = None,
    for_model: bool | None = None,
) -> Turn:
    """Save `text` as the user's message (None: answer the last, unanswered one again) and build the prompt.
    Every few turns the saved message queues an extraction through `enqueue_extraction` (default: the job
    seam, `Job.EXTRACT`). `now`: the moment a question about the past is counted back from (default: now;
    benchmarks fix it). `llm`: the model that compacts and replies (default: the configured one; None: no
    model); `embedder` and `graph`: recall's clients (default: the configured ones). `for_model`: hand the
    memories as to a model, a wider numbered set (default: when a model replies; benchmarks set it)."""
    llm = resolve(llm)
    for_model = llm is not None if for_model is None else for_model
    prefs = MemorySettings.objects.get_or_create(user_id=conversation.user_id)[0]
    memory_used = uses_memory(conversation, prefs)
    if text is None:
        user_message = unanswered_message(conversation)
        if user_message is None:
            raise ChatInputError(_("There is no unanswered message to retry."))
        command = memory_commands.parse_command(user_message.content) if user_message.memory_command else None
    else:
        text = text.strip()
        if not text:
            raise ChatInputError(_("Type a message first."))
        if len(text) > MAX_MESSAGE_CHARS:
            raise ChatInputError(_("Messages are limited to %(count)d characters.") % {"count": MAX_MESSAGE_CHARS})
        if has_nul(text):
            raise ChatInputError(_("Messages cannot contain NUL characters."))
        command = memory_commands.parse_command(text)
        user_message = _save_user_message(
            conversation, text, prefs if memory_used and command is None else None, enqueue_extraction, command
        )
    if command is not None:
        answer = memory_commands.run_command(
            command,
            conversation.user_id,
            memory_on=prefs.memory_enabled,
            temporary=conversation.temporary,
            message=user_message.content,
        )
        return Turn(
            conversation,
            user_message,
            [],
            memory_used=memory_used,
            prefs=prefs,
            command=command,
            answer=answer,
            llm=llm,
        )

    history = _recent_history(conversation, user_message)
    state, state_available = _chat_state(conversation, text, llm, now)
    recalled: list[RecalledMemory] = []
    recall_ms = 0.0
    in_full = RECALL_CHAT.limit  # a model's list: how many come whole before the one-liners (offer.py)
    previous = [m["content"] for m in history[:-1] if m["role"] == Role.USER]
    query = chat_recall_query(user_message.content, previous, now=now)
    if memory_used and query is not None:
        recalled, recall_ms, in_full = _recall_for_turn(
            conversation.user,
            query,
            user_message.content,
            previous,
            embedder=embedder,
            graph=graph,
            for_model=for_model,
        )
        recalled = _beside_rivals(conversation.user_id, recalled)
    # An earlier reply's markers numbered that turn's memories, not this one's: they stay out of the prompt.
    history = [
        {
            "role": m["role"],
            "content": citations.without_markers(m["content"]) if m["role"] == Role.ASSISTANT else m["content"],
        }
        for m in _compacted_history(conversation, user_message, history, llm)
    ]
    # Only the memories that fit the budget reach the prompt, and only those are cited (fitting keeps a prefix).
    remembered = [as_remembered(item.memory) for item in recalled]
    if for_model:
        fitted = offer.handed(remembered, in_full)
    else:
        fitted = fit_memories(remembered, Budget.for_window(WINDOW_TOKENS).memories)
    prompt = build_messages(
        history,
        fitted,
        window_tokens=WINDOW_TOKENS,
        earlier=conversation.summary,
        numbered=for_model,
        memory_on=memory_used,
        state=state,
        keeps_state=llm is not None and state_available,
    )
    if not for_model:  # a model's turn counts only what its reply used, in finish_turn
        access.note_access([item.memory.pk for item in recalled[: len(fitted)]], conversation_id=conversation.pk)
    return Turn(
        conversation,
        user_message,
        prompt,
        recalled[: len(fitted)],
        memory_used,
        prefs,
        recall_ms,
        llm=llm,
        numbered=for_model,
        memory_tokens=count_tokens(memories_block(fitted, for_model)) if fitted else 0,
        state_available=state_available,
        keeps_state=llm is not None and state_available,
    )


def _chat_state(
    conversation: Conversation, text: str | None, llm: LLMProvider | None, now: datetime | None
) -> tuple[list[Entry], bool]:
    """The chat's working memory for this turn's prompt, and whether it could be read. Without a model, a new
    message's task details are kept first by the rules (chat_state/rules.py), so this turn's prompt has them;
    with one, the reply keeps them (finish_turn). Redis down: none, and the turn goes on."""
    session = chat_state.chat_session(conversation.pk)
    try:
        entries = chat_state.entries(conversation.user_id, session)
        if llm is None and text is not None:
            kept = {entry.key: entry.value for entry in entries}
            changes = rules.task_entries(text, now=now or timezone.now(), kept=kept)
            changes = {key: value for key, value in changes.items() if kept.get(key) != value}
            if changes:
                entries = chat_state.put(conversation.user_id, session, changes, by="chat")
    except chat_state.ChatStateUnavailable:
        logger.warning("working memory unavailable for conversation %s", conversation.pk)
        return [], False
    except chat_state.ChatStateInvalid as exc:  # the rules' own value too large: keep what was there
        logger.warning("working memory not updated for conversation %s: %s", conversation.pk, exc.message)
        return entries, True
    return entries, True


def _beside_rivals(user_id: int, recalled: list[RecalledMemory]) -> list[RecalledMemory]:
    """A memory the user is asked about (a newer one may have replaced it: engine/memories/conflicts.py) is
    handed only beside that newer one, never alone as if it still held."""
    doubted = conflicts.doubted_ids(user_id) if recalled else {}
    handed = {item.memory.pk for item in recalled}
    return [item for item in recalled if item.memory.pk not in doubted or doubted[item.memory.pk] in handed]


def _recall_for_turn(
    user,
    query: ChatQuery,
    message: str,
    previous: list[str],
    *,
    embedder: Embedder | None,
    graph: GraphPort | None,
    for_model: bool = False,
) -> tuple[list[RecalledMemory], float, int]:
    """What the turn hands the model, best first, the time recall took (ms), and how many of the first
    were chosen (a model's list hands those whole). The trained relevance model decides when there is
    one for this embedder; a question about the past or about what came before (which it was not trained
    on) and a setup without it keep the fixed gates below. `for_model`: the wider list a model is handed
    (offer.py), cut by the caller (offer.handed)."""
    from ..recall.chain import replaced_before
    from ..recall.recall import recall

    model = None if (query.past or query.before) else usable(relevance.MODEL_NAME)
    # A model reads the vectors of the embedder it was trained on: one handed in that is another keeps the gates.
    if model is not None and (embedder is None or getattr(embedder, "name", "") == model.embedder):
        return _recall_learned(
            user, query, message, previous, model, embedder=embedder, graph=graph, for_model=for_model
        )
    started = time.perf_counter()
    # A question about the past keeps the chat's gate: a lower one or full text as evidence found
    # more old versions on bench.chat --split past (jonas) but handed twice as many unneeded ones.
    past = query.past
    config = RECALL_CHAT if query.about_user else RECALL_CHAT_GENERAL
    if for_model:
        config = config.model_copy(update={"limit": offer.CANDIDATES})
    # "What did I prefer before React?": what the named memory replaced comes first, as past.
    earlier = []
    if query.before and not (past and past.at):
        earlier = replaced_before(user, query.before, limit=config.limit, embedder=embedder, graph=graph)
    results = recall(
        user,
        query.text,
        config=config,
        at=past.at if past else None,
        include_history=bool(earlier or (past and past.include_history)),
        record_access=False,
        embedder=embedder,
        graph=graph,
    )
    handed = {item.memory.pk for item in earlier}
    recalled = [*earlier, *(item for item in results.items if item.memory.pk not in handed)][: config.limit]
    return recalled, (time.perf_counter() - started) * 1000, RECALL_CHAT.limit


def _recall_learned(
    user,
    query: ChatQuery,
    message: str,
    previous: list[str],
    model,
    *,
    embedder: Embedder | None,
    graph: GraphPort | None,
    for_model: bool = False,
) -> tuple[list[RecalledMemory], float, int]:
    """The model's choice among recall's nearest candidates (with how many it chose, for_model: then the
    rest by cosine); a message it finds needs no memory of the user ("what's the capital of Peru?")
    recalls nothing."""
    from memoryapp.providers.embeddings import get_embedder, query_vector

    from ..recall.recall import recall

    started = time.perf_counter()
    # A search: on the embedder's query side (e5's "query: "), as recall() embeds one and the relevance
    # model's message vectors were trained (bench/train/relevance.py).
    vector = query_vector(embedder or get_embedder(), query.text)
    # A message the gate finds needs no memory recalls nothing, unless it names someone or something
    # (relevance.names_in) that a recalled memory may name too.
    if not relevance.message_needs_memory(model, vector, message) and not relevance.names_in(message):
        return [], (time.perf_counter() - started) * 1000, 0
    config = RECALL_CHAT_CANDIDATES
    if for_model:
        config = config.model_copy(update={"limit": max(offer.CANDIDATES, config.limit)})
    items = recall(
        user, query.text, config=config, query_vector=vector, record_access=False, embedder=embedder, graph=graph
    ).items
    candidates = [relevance.Candidate(item.memory.content, item.memory.kind, item.cosine) for item in items]
    if for_model:
        kept, in_full = offer.ranked(model, message, previous, vector, candidates)
        return [items[index] for index in kept], (time.perf_counter() - started) * 1000, in_full
    chosen = relevance.choose(model, message, previous, vector, candidates, limit=RECALL_CHAT.limit)
    return [items[index] for index, _ in chosen], (time.perf_counter() - started) * 1000, len(chosen)


def as_remembered(memory) -> str:
    """A memory as the prompt carries it: a version no longer current says until when it held and what
    replaced it, so the reply speaks of it as the past ("你5个月前喜欢Vue")."""
    if memory.valid_until is None:
        return memory.content
    new = memory.replaced_by
    day = memory.valid_until.date().isoformat()
    if new is None:
        return _("%(content)s (true until %(day)s, no longer current)") % {"content": memory.content, "day": day}
    return _("%(content)s (true until %(day)s, then replaced by: %(new)s)") % {
        "content": memory.content,
        "day": day,
        "new": new.content,
    }


def _turns_after_summary(conversation: Conversation, user_message: Message):
    # Turns about memory itself stay out: "forget that I live in Berlin" must not bring Berlin back.
    return conversation.messages.filter(
        id__lte=user_message.pk,
        id__gt=conversation.summary_until or 0,
        role__in=(Role.USER, Role.ASSISTANT),
        memory_command__isnull=True,
    )


def _recent_history(conversation: Conversation, user_message: Message) -> list[dict]:
    """The chat after its summary up to `user_message`, oldest first, cut to what the history budget could
    ever hold (every message costs at least 4 tokens), so a long chat is not loaded whole each turn."""
    most = Budget.for_window(WINDOW_TOKENS).history // 4 + 1
    recent = (
        _turns_after_summary(conversation, user_message)
        .order_by("-created_at", "-id")
        .values("id", "role", "content")[:most]
    )
    return list(reversed(recent))


def _compacted_history(
    conversation: Conversation, user_message: Message, history: list[dict], llm: LLMProvider | None
) -> list[dict]:
    """`history`, or, when it no longer fits beside the summary, what is left after compacting the oldest
    turns into the summary (engine/chat/compaction.py)."""
    budget = Budget.for_window(WINDOW_TOKENS).history
    summary_cost = count_tokens(format_earlier_block(conversation.summary)) if conversation.summary else 0
    if not compaction.overflows(history, budget - summary_cost):  # as build_messages will count it
        return history

    every = list(
        _turns_after_summary(conversation, user_message).order_by("created_at", "id").values("id", "role", "content")
    )
    if compaction.compact(conversation, every[:-1], budget, llm):  # the new message itself stays
        return _recent_history(conversation, user_message)
    return history


def _save_user_message(
    conversation: Conversation,
    text: str,
    prefs: MemorySettings | None,
    enqueue_extraction: EnqueueExtraction | None,
    command: memory_commands.Command | None = None,
) -> Message:
    """Save the message; with `prefs` (memory on for this chat) the pipeline hears of the turn."""
    with transaction.atomic():
        message = Message.objects.create(
            conversation=conversation,
            role=Role.USER,
            content=text,
            token_count=count_tokens(text),
            memory_command={"intent": command.intent.value} if command else None,
        )
        chat_end.reopen(conversation)  # an ended chat that goes on will end again
        if not conversation.title:
            conversation.title = " ".join(text.split())[:TITLE_CHARS]
        conversation.save(update_fields=["title", "updated_at"])
    if prefs is not None:
        transaction.on_commit(lambda: notify_extraction(conversation, enqueue_extraction, prefs))
    return message


def unanswered_message(conversation: Conversation) -> Message | None:
    last = conversation.messages.order_by("-created_at", "-id").first()
    return last if last is not None and last.role == Role.USER else None


def stream_reply(turn: Turn) -> Iterator[str]:
    """Text deltas from the turn's model (a memory command's answer, line by line); raises ProviderError
    on failure."""
    if turn.answer is not None:
        return iter(re.findall(r".*\n|.+", turn.answer.text))
    deltas = replies.stream_reply(turn.prompt, turn.llm)
    return _without_trailer(turn, deltas) if turn.keeps_state else deltas


def _without_trailer(turn: Turn, deltas: Iterator[str]) -> Iterator[str]:
    """The deltas the user sees: the working-memory line at the reply's end is held back (kept on the turn
    for finish_turn)."""
    cut = trailer.TrailerStream()
    for delta in deltas:
        shown = cut.feed(delta)
        if shown:
            yield shown
        turn.trailer = cut.held
    rest = cut.close()
    if rest:
        yield rest


def reply(turn: Turn) -> str:
    if turn.answer is not None:
        return turn.answer.text
    return replies.reply(turn.prompt, turn.llm)


def finish_turn(turn: Turn, text: str) -> Message | None:
    """Save the assistant's reply with the memories it was given, each marked used or only offered; nothing
    is saved for an empty reply. A model's reply used what it marked (citations.py; an invented number is
    dropped from it); an offline reply lists every memory it was given, so it used them all. A reply that
    keeps the chat's working memory has its trailer line cut and applied first."""
    if turn.keeps_state:
        text = _keep_state(turn, text + turn.trailer)
    if turn.numbered:
        text = citations.without_invented(text, len(turn.recalled))
    if not text.strip():
        return None
    used = set(citations.used(text, len(turn.recalled))) if turn.numbered else None
    with transaction.atomic():
        message = Message.objects.create(
            conversation=turn.conversation,
            role=Role.ASSISTANT,
            content=text,
            token_count=count_tokens(text),
            memory_command=turn.answer.record(turn.command)
            if turn.answer is not None and turn.command is not None
            else None,
        )
        Citation.objects.bulk_create(
            [
                Citation(
                    message=message,
                    memory=item.memory,
                    score=round(item.score, 4),
                    rank=rank,
                    used=used is None or rank in used,
                )
                for rank, item in enumerate(turn.recalled, start=1)
            ]
        )
        Conversation.objects.filter(pk=turn.conversation.pk).update(updated_at=timezone.now())
    if used:  # what keeps mattering is what replies use, not the wider set a model was offered
        access.note_access([turn.recalled[n - 1].memory.pk for n in sorted(used)], conversation_id=turn.conversation.pk)
    return message


def _keep_state(turn: Turn, text: str) -> str:
    """The reply without its working-memory line; what the line held is written (a failure is logged: the
    reply stands)."""
    text, changes = trailer.split(text)
    if changes:
        try:
            chat_state.put(turn.conversation.user_id, chat_state.chat_session(turn.conversation.pk), changes, by="chat")
        except (chat_state.ChatStateUnavailable, chat_state.ChatStateInvalid) as exc:
            logger.warning("working memory not updated from the reply in %s: %s", turn.conversation.pk, exc.message)
    return text


def chat_turn(
    conversation: Conversation,
    text: str | None,
    *,
    enqueue_extraction: EnqueueExtraction | None = None,
    llm: ModelChoice = CONFIGURED,
) -> tuple[Turn, Message | None]:
    """One whole turn without streaming (the REST API)."""
    turn = start_turn(conversation, text, enqueue_extraction=enqueue_extraction, llm=llm)
    return turn, finish_turn(turn, reply(turn))


# -- the extraction pipeline (engine/learning/extraction.py, queued through engine/jobs.py) ------------------------


def notify_extraction(
    conversation: Conversation, enqueue: EnqueueExtraction | None, prefs: MemorySettings | None = None
) -> None:
    """Tell the pipeline a user turn happened; it decides whether this turn queues extraction."""
    try:
        on_user_turn(conversation, enqueue, prefs)
    except Exception:  # extraction must never break a chat turn
        logger.exception("on_user_turn failed for conversation %s", conversation.pk)
