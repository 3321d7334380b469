"""Building the model's input for a chat turn (DESIGN flow 1).

Budget split of the context window: system 10%, the chat's working memory 5% (engine/chat_state), long-term
memories 15%, recent messages 50%, the reply 20%. Memories, working memory and the summary of earlier turns
go inside blocks (llm/delimiters.py) as quotation, never as instructions.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..chat_state.prompt import state_block
from ..chat_state.store import Entry
from ..chat_state.trailer import INSTRUCTION as TRAILER_INSTRUCTION
from ..llm.defaults import MEMORY_OFF_LINE
from ..llm.delimiters import format_earlier_block, format_memories_block, format_numbered_memories_block, quoted
from ..text import count_tokens

SYSTEM_SHARE, STATE_SHARE, MEMORY_SHARE, HISTORY_SHARE, REPLY_SHARE = 0.10, 0.05, 0.15, 0.50, 0.20
CUT_MARK = "\n[… {count} characters left out …]\n"

SYSTEM_PROMPT = (
    "You are a helpful assistant with long-term memory of this user. "
    "Answer in the language of the user's last message. "
    "The memories block lists things remembered about the user; the earlier_in_this_chat block, "
    "when present, summarises the start of this chat; the keeping_in_mind block, when present, holds the "
    "details of the task in progress in this chat as settled so far. "
    + quoted("memories", "earlier_in_this_chat", "keeping_in_mind")
    + " "
    'Use a memory only when it is relevant, and say so briefly when you do ("based on your preference for ...").'
)

# With a model the memories are numbered and the reply marks what it used (engine/chat/citations.py):
# only those become the reply's chips.
CITE_INSTRUCTION = (
    "The memories are numbered. Right after a sentence that uses a memory, mark it with its number in square "
    "brackets, like [1] (or [1, 2]). Mark only memories your reply actually uses; most replies use none, and "
    "a number that is not listed must never appear. A line ending in “…” is the start of a longer memory."
)


def memories_block(contents: list[str], numbered: bool = False) -> str:
    return format_numbered_memories_block(contents) if numbered else format_memories_block(contents)


@dataclass(frozen=True)
class Budget:
    system: int
    memories: int
    history: int
    reply: int
    state: int

    @classmethod
    def for_window(cls, window_tokens: int) -> Budget:
        return cls(
            int(window_tokens * SYSTEM_SHARE),
            int(window_tokens * MEMORY_SHARE),
            int(window_tokens * HISTORY_SHARE),
            int(window_tokens * REPLY_SHARE),
            int(window_tokens * STATE_SHARE),
        )


def fit_memories(contents: list[str], budget_tokens: int) -> list[str]:
    """Best-first memories that fit the memory budget (a memory is never cut in half; a number costs
    about as much as a bullet)."""
    kept, used = [], count_tokens("<memories>\n</memories>")
    for content in contents:
        cost = count_tokens(content) + 2
        if used + cost > budget_tokens:
            break
        kept.append(content)
        used += cost
    return kept


def shorten_middle(text: str, budget_tokens: int) -> str:
    """`text` cut in the middle to fit `budget_tokens`, its start and end kept, the cut marked."""
    if count_tokens(text) <= budget_tokens:
        return text
    low, high = 0, len(text)  # the most characters whose head+tail still fits
    while low < high:
        keep = (low + high + 1) // 2
        head, tail = text[: keep - keep // 2], text[len(text) - keep // 2 :]
        cut = f"{head}{CUT_MARK.format(count=len(text) - keep)}{tail}"
        if count_tokens(cut) <= budget_tokens:
            low = keep
        else:
            high = keep - 1
    head, tail = text[: low - low // 2], text[len(text) - low // 2 :]
    return f"{head}{CUT_MARK.format(count=len(text) - low)}{tail}"


def fit_history(messages: list[dict], budget_tokens: int) -> list[dict]:
    """The most recent messages whose tokens fit the history budget, in order.

    The newest message always goes in: when it alone is over the budget it is shortened in the
    middle, since a turn sent without the user's message would be answered blind."""
    if not messages:
        return []
    newest = messages[-1]
    if count_tokens(newest["content"]) + 4 > budget_tokens:
        return [{**newest, "content": shorten_middle(newest["content"], budget_tokens - 4)}]
    kept, used = [], 0
    for message in reversed(messages):
        cost = count_tokens(message["content"]) + 4
        if used + cost > budget_tokens:
            break
        kept.append(message)
        used += cost
    return list(reversed(kept))


def build_messages(
    history: list[dict],
    memories: list[str],
    *,
    window_tokens: int = 8192,
    system_prompt: str = SYSTEM_PROMPT,
    earlier: str = "",
    numbered: bool = False,
    memory_on: bool = True,
    state: list[Entry] | None = None,
    keeps_state: bool = False,
) -> list[dict]:
    """System prompt (+ memories block, + the summary of the chat's turns that no longer fit) followed by
    the recent history that fits, ending with the user turn. The summary is paid from the history budget.
    `numbered`: the memories are numbered for a model to mark what it used (CITE_INSTRUCTION); `memory_on`
    False: the chat neither uses nor keeps memories, and the prompt says so (MEMORY_OFF). `state`: the chat's
    working memory, carried in its own budget part; `keeps_state`: the reply is asked to keep it up to date
    (a model's trailer line, engine/chat_state/trailer.py)."""
    budget = Budget.for_window(window_tokens)
    system = system_prompt if memory_on else f"{system_prompt} {MEMORY_OFF_LINE}"
    if keeps_state:  # instructions first, then the blocks of quoted text
        system = f"{system} {TRAILER_INSTRUCTION}"
    fitted = fit_memories(memories, budget.memories)
    if fitted:
        cite = f" {CITE_INSTRUCTION}" if numbered else ""
        system = f"{system}{cite}\n\n{memories_block(fitted, numbered)}"
    kept = state_block(state or [], budget.state)
    if kept:
        system = f"{system}\n\n{kept}"
    history_budget = budget.history
    if earlier:
        block = format_earlier_block(earlier)
        system = f"{system}\n\n{block}"
        history_budget -= count_tokens(block)
    return [{"role": "system", "content": system}, *fit_history(history, history_budget)]
