""" "Remember this" on a chat message: the user's own confirmation, so it saves now, or says why not.

The message goes through extraction's two decisions at once (candidates, then ADD / UPDATE / already
known against the nearest memories) and the write path, so the same checks apply as to every write: what
`contains_sensitive` flags is refused, with the reason shown where the user asked. When the extractor
finds nothing in the message (the rules without a model keep only statements they recognise; "Remember this" was
pressed on a question, a list or the assistant's answer), the message is kept as written: the user chose
it, and a second "keep it as written?" click would only ask the same thing twice. It saves with
auto-learn off too (the settings' "wait for your confirmation": this is the confirmation); memory off
and a temporary chat save nothing and say so.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from django.utils.translation import gettext as _

from conversations.models import Message, Role
from memoryapp.models import Actor, Memory, MemorySettings, MemorySource
from memoryapp.providers.llm.errors import ProviderError

from ..errors import EngineError
from ..llm import CONFIGURED, ModelChoice, resolve
from ..llm.candidates import extract_candidates
from ..llm.decisions import decide
from ..llm.defaults import is_offline_notice
from ..llm.schemas import Candidate, CandidateWithNeighbours, DecisionAction, MemoryKind
from ..memories import write
from ..memories.validation import MAX_CONTENT_LENGTH
from ..sensitive import contains_sensitive
from .anchoring import anchored_start
from .extraction import ask_about, clean_candidates, learnt_from, nearest_memories

if TYPE_CHECKING:
    from memoryapp.providers.embeddings.base import Embedder
    from memoryapp.providers.llm.base import LLMProvider

logger = logging.getLogger(__name__)

AS_WRITTEN_IMPORTANCE = 0.7  # asked for by name: above what extraction guesses for a passing remark


class Saved(StrEnum):
    CREATED = "created"  # a new memory
    UPDATED = "updated"  # it replaced what it changes ("I now live in Munich")
    KNOWN = "known"  # already remembered: nothing new


@dataclass
class Remembered:
    saved: list[tuple[Saved, Memory]] = field(default_factory=list)
    refused: str = ""  # why nothing was saved, one sentence for the user
    withheld_secret: bool = False  # part of the message looked like a secret and was left out


def remember_message(
    message: Message, *, llm: ModelChoice = CONFIGURED, embedder: Embedder | None = None
) -> Remembered:
    """Save what `message` says as memories of its chat's owner (see the module's docstring). `llm`: default
    the configured model (None: no model, the rules); `embedder`: default the configured one."""
    llm = resolve(llm)
    conversation = message.conversation
    prefs = MemorySettings.objects.get_or_create(user_id=conversation.user_id)[0]
    if conversation.temporary or not prefs.memory_enabled:
        return Remembered(refused=_("Memory is off for this chat, so nothing was saved."))
    if message.memory_command:
        return Remembered(refused=_("This message is about memory itself; there is nothing in it to remember."))
    if message.role != Role.USER and is_offline_notice(message.content):
        return Remembered(refused=_("This is the app's own notice that no model is configured; it is not kept."))
    candidates = _candidates(message, llm)
    secret = contains_sensitive(message.content)
    if not candidates:
        if secret:
            return Remembered(
                refused=_(
                    "Not saved: this message looks like it holds a password, key, card or "
                    "ID number, and those are never stored."
                )
            )
        text = " ".join(message.content.split())
        if len(text) > MAX_CONTENT_LENGTH:
            return Remembered(
                refused=_(
                    "Not saved: a memory holds at most %(count)d characters. Add the part "
                    "that matters on the memories page."
                )
                % {"count": MAX_CONTENT_LENGTH}
            )
        candidates = [Candidate(content=text, kind=MemoryKind.FACT, importance=AS_WRITTEN_IMPORTANCE, confidence=1.0)]
    try:
        saved = _apply(message, candidates, llm, embedder)
    except EngineError as exc:
        return Remembered(refused=_("Not saved: %(reason)s") % {"reason": exc.message})
    return Remembered(saved=saved, withheld_secret=secret)


def _candidates(message: Message, llm: LLMProvider | None) -> list[Candidate]:
    """What the extractor finds in the user's message; none for the assistant's (kept as written)."""
    if message.role != Role.USER:
        return []
    try:
        result = extract_candidates([{"role": Role.USER, "content": message.content}], llm)
    except ProviderError as exc:  # the model is down: the user's words are still worth keeping as written
        logger.warning("extraction for 'Remember this' on message %s failed: %s", message.pk, exc.message)
        return []
    return clean_candidates(result.candidates)  # secrets dropped whatever the model says


def _apply(
    message: Message, candidates: list[Candidate], llm: LLMProvider | None, embedder: Embedder | None
) -> list[tuple[Saved, Memory]]:
    from memoryapp.providers.embeddings import get_embedder

    user_id = message.conversation.user_id
    vectors = (embedder or get_embedder()).embed([c.content for c in candidates])
    items = [
        CandidateWithNeighbours(candidate=c, neighbours=nearest_memories(user_id, v, c.content))
        for c, v in zip(candidates, vectors)
    ]
    if any(item.neighbours for item in items):
        try:
            decisions = {d.candidate_index: d for d in decide(items, llm).decisions}
        except (ProviderError, ValueError) as exc:  # down, or a decision that fails the checks: add them
            logger.warning("deciding for 'Remember this' on message %s failed: %s", message.pk, exc)
            decisions = {}
    else:
        decisions = {}
    source: dict[str, Any] = {
        "source": MemorySource.MANUAL,
        "source_conversation_id": message.conversation_id,
        "source_message_id": message.pk,
        "context": learnt_from(message),
    }
    saved: list[tuple[Saved, Memory]] = []
    for i, (candidate, vector) in enumerate(zip(candidates, vectors)):
        details: dict[str, Any] = {
            "kind": candidate.kind.value,
            "importance": candidate.importance,
            "confidence": candidate.confidence,
        }
        decision = decisions.get(i)
        action = decision.action if decision else DecisionAction.ADD
        if action in (DecisionAction.SKIP, DecisionAction.BOOST) and decision is not None and decision.target_id:
            known = Memory.objects.filter(pk=decision.target_id, user_id=user_id).first()
            if known is not None:
                saved.append((Saved.KNOWN, write.boost_memory(known, actor=Actor.USER).memory))
                continue
        if action is DecisionAction.UPDATE and decision is not None and decision.target_id:
            old = Memory.objects.filter(pk=decision.target_id, user_id=user_id).first()
            if old is not None and old.is_current:
                new = write.supersede_memory(
                    old,
                    candidate.content,
                    **details,
                    **source,
                    actor=Actor.USER,
                    embedding=vector,
                    valid_from=anchored_start(candidate.content, message.created_at, old),
                ).memory
                saved.append((Saved.UPDATED, new))
                continue
        # ADD, and DELETE too: the user asked to keep this, not to drop what it resembles.
        result = write.add_memory(
            user_id,
            candidate.content,
            **details,
            **source,
            actor=Actor.USER,
            embedding=vector,
            valid_from=anchored_start(candidate.content, message.created_at),
        )
        saved.append((Saved.CREATED if result.action != "merged" else Saved.KNOWN, result.memory))
        if decision is not None and decision.ask_about is not None and result.action == "created":
            ask_about(user_id, decision.ask_about, result.memory)  # it may replace a memory of its slot: ask
    return saved
