"""Memory in the chat itself: "what do you remember about me?" lists what is stored, grouped by kind;
"forget that I live in Berlin" soft-deletes the memory meant, says which, and the chat offers Undo.

Which turn is such a command is decided by a small set of clear patterns per language: these are commands
to the app, like a menu's, and a rule is right for them (DESIGN, Principles). Which memory is meant is
recall's job (RECALL_MEMORY_COMMAND in recipes.py): the nearest by meaning wins when no other is within
MARGIN of it; otherwise the reply asks which one, and says so when nothing matches. The answer is the
app's own, with or without a model, in the language of the message; such turns are never learnt from.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from memoryapp.lib.scripts import HAN
from memoryapp.models import Actor, Memory, MemoryKind, MemoryStatus, normalise_content

from ..memories import write
from ..recall.recipes import RECALL_MEMORY_COMMAND
from ..reply_language import message_language
from ..text import EN_STOPWORDS, quoted

if TYPE_CHECKING:
    from ..recall.recall import RecalledMemory

MARGIN = 0.08  # cosine within which a second memory is as likely meant as the nearest: ask
# Forgotten without asking: the one nearest memory at cosine >= CERTAIN that shares a telling word with what
# was said, or one at >= SAME. Below, the reply asks ("did you mean ...?", a button): with the multilingual
# embedder, "I live in Munich" is 0.63 from "I live in Berlin" and "I have a dog" 0.50 from "I have a cat",
# while "my address" is 0.67 from "My address is 12 Oak Street" and "我养猫" 0.73 from "我养了一只猫".
CERTAIN = 0.6
SAME = 0.8
LIST_PER_KIND = 10  # memories listed under each kind; the rest are counted
ASK_AT_MOST = 5


class Intent(StrEnum):
    LIST = "list"
    FORGET = "forget"


class Outcome(StrEnum):
    LISTED = "listed"
    FORGOT = "forgot"
    ASK = "ask"  # several memories match: the reply lists them, a button each
    NOTHING = "nothing"  # nothing matches what the user named
    EVERYTHING = "everything"  # "forget everything": pointed to Clear all on the memories page
    OFF = "off"  # memory is off, or the chat is temporary


@dataclass(frozen=True)
class Command:
    intent: Intent
    target: str = ""  # what to forget, in the user's words


@dataclass
class CommandReply:
    text: str  # Markdown, in the language of the message
    outcome: Outcome
    memory_ids: list[int] = field(default_factory=list)

    def record(self, command: Command) -> dict:
        """What the reply message keeps (Message.memory_command): the page renders Undo or choices from it."""
        return {"intent": command.intent.value, "outcome": self.outcome.value, "memory_ids": self.memory_ids}


# -- which turns are commands -------------------------------------------------------------------------

_LEAD_EN = (
    r"^(?:(?:hey|hi|ok|okay|so|well|and|also|actually|oh|now|assistant)\b[\s,]*)*"
    r"(?:(?:please|pls|can\s+you|could\s+you|would\s+you|will\s+you|i\s+want\s+you\s+to"
    r"|i'd\s+like\s+you\s+to|i\s+need\s+you\s+to|you\s+can|you\s+may|you\s+should)\s+)*"
)
_ABOUT_ME = r"(?:about|of|on)\s+me\b"
_LIST_EN = re.compile(
    _LEAD_EN
    + r"""(?:
    (?:tell\s+me\s+|show\s+me\s+)?what(?:'s|\s+is|\s+else)?\s+(?:do|did|have|can|else)?\s*you\s+(?:already\s+|currently\s+|actually\s+|still\s+)?
        (?:remember(?:ed)?|know|recall|learn(?:ed|t)?|store[ds]?|save[ds]?|kept|keep|memori[sz]ed|have\s+(?:stored|saved|learn(?:ed|t)|on\s+file))\s+"""
    + _ABOUT_ME
    + r"""
  | what\s+(?:do\s+)?you\s+have\s+(?:stored\s+|saved\s+|on\s+file\s+|in\s+(?:your\s+)?memory\s+)?"""
    + _ABOUT_ME
    + r"""
  | what(?:'s|\s+is|\s+do\s+you\s+have)\s+in\s+your\s+memory
  | (?:what|which)\s+(?:memories|info|information|data|details)\s+(?:do\s+you\s+have|have\s+you\s+(?:got|saved|stored|kept))
  | what\s+have\s+you\s+got\s+"""
    + _ABOUT_ME
    + r"""
  | what\s+are\s+(?:my|your|the)\s+(?:saved\s+|stored\s+)?memories
  | (?:list|show|display|give|read|tell)(?:\s+me)?(?:\s+out)?\s+(?:all\s+)?(?:of\s+)?(?:(?:my|your|the|saved|stored)\s+)?
        (?:saved\s+|stored\s+)?(?:memories\b|memory$)  # not "show memory usage"
  | (?:list|show|tell)(?:\s+me)?\s+(?:everything|all|what)\s+(?:that\s+)?you\s+(?:remember|know|have\s+stored|have\s+saved)
  | do\s+you\s+(?:remember|know)\s+anything\s+"""
    + _ABOUT_ME
    + r"""
  | how\s+much\s+do\s+you\s+(?:know|remember)\s+"""
    + _ABOUT_ME
    + r"""
  | what\s+(?:else\s+)?(?:do|did)\s+you\s+remember$
)""",
    re.X,
)

_LEAD_ZH = r"^(?:请|那|那么|嗯|好|哎|喂|所以|现在|你好)?[，,\s]*"
_LIST_ZH = re.compile(
    _LEAD_ZH
    + r"""(?:
    你?(?:都|还|现在|目前|到底|一共|已经)*(?:记得|记住了?|记下了?|记着|知道|了解|存了?|保存了?)(?:些|了)?(?:关于)?我(?:的)?(?:哪些|什么|啥|多少|些什么|的事)
  | 你对我(?:都)?(?:有)?(?:了解|知道|记得|记住了)(?:多少|什么|些什么|哪些)
  | (?:说说|讲讲)你对我的了解
  | (?:列出|显示|展示|看看|看一看|查看|给我看看?|告诉我|说说)(?:一下)?(?:我的|你的|你记得的|你记住的|所有的?|全部的?)*记忆
  | 我的记忆(?:有哪些|都有什么|有什么|列表)
  | 你(?:的)?记忆里(?:都)?(?:有|存了|存着)(?:我的|关于我的)?(?:什么|哪些|啥)
  | 关于我你(?:都)?(?:记得|知道|记住了)(?:什么|哪些|些什么)
  | 你?(?:都|还)?(?:记得|记住了|知道)(?:哪些|什么|些什么)关于我的
  | 你对我有(?:哪些|什么)记忆
  | (?:说说|讲讲|告诉我|列出)(?:一下)?你(?:都)?(?:记得|记住|知道)的(?:关于我的)?(?:事|一切|东西|内容|记忆)
)""",
    re.X,
)

_FORGET_EN = re.compile(
    _LEAD_EN
    + r"""(?:
    forget(?:\s+about)?|unlearn|stop\s+remembering|don't\s+remember|do\s+not\s+remember|no\s+longer\s+remember
  | (?:erase|remove|delete|wipe)\s+from\s+(?:your\s+)?memory
  | (?:delete|remove|erase|drop|clear|wipe)(?=\s+(?:the\s+|your\s+|that\s+|this\s+)?(?:memory|memories|fact|note|entry|info|information)\b
        |\s+(?:what\s+you\s+(?:know|remember)|everything\s+you\s+(?:know|remember)|my\s))
)\s+(?P<target>.+)$""",
    re.X,
)
_TARGET_LEAD_EN = re.compile(
    r"^(?:(?:the|your|that|this)\s+)?(?:memory|memories|fact|note|entry|info|information)\s+(?:that\s+says\s+|saying\s+|that\s+|about\s+|of\s+|where\s+)?"
    r"|^(?:what|everything)\s+(?:you\s+(?:know|remember)\s+|i\s+(?:said|told\s+you)\s+)?(?:about\s+)?"
    r"|^(?:the\s+fact\s+)?that\s+|^about\s+"
)
_TARGET_TAIL_EN = re.compile(
    r"(?:\s+(?:from|in)\s+(?:your|my|the)\s+memor(?:y|ies)|\s+any\s*more|\s+please|\s+for\s+me|\s+for\s+good|\s+now)+$"
)

_ZH_VERB = (
    r"(?:忘掉|忘记|忘了|删掉|删除|删了|删去|抹掉|移除|去掉|清除|不要再记着|别再记着|不要再记得|别再记得|不要再记|别再记"
    r"|别记着|不要记着|不用再记着|不用记着|不用再记得|不用记得|别记得|不再记着|别记住|不要记住|不用记住)"
)
_FORGET_ZH = re.compile(
    r"^(?:请|麻烦你?|拜托|你|帮我|能不能|可以|可不可以|能|那|那就|还有|另外|以后|从现在起)*[，,\s]*"
    + _ZH_VERB
    + r"(?:掉|了)?[，,\s]*(?P<target>.+)$"
)
_FORGET_ZH_BA = re.compile(
    r"^(?:请|麻烦你?|拜托|你|帮我|能不能|可以|那|那就)*[，,\s]*把(?P<target>.+?)(?:给|从(?:你的)?记忆(?:里|中))?"
    + r"(?:忘掉|忘了|忘记|删掉|删了|删除|去掉|抹掉)"
)
_TARGET_TAIL_ZH = re.compile(
    r"(?:这件事情?|这个事情?|那件事情?|这一条|这条记忆|那条记忆|这个记忆|这条|那条|的记忆|的事情?|这点)?"
    r"(?:从(?:你的)?记忆(?:里|中))?(?:吧|了|啦|啊|呀|哦|吗)*$"
)
_ZH_ABOUT_USER = re.compile(r"^关于|^我|这件事|这个事|这条|那条|的记忆|的事")
_EVERYTHING = re.compile(
    r"^(?:everything|all(?:\s+(?:of\s+)?(?:it|my\s+memories|memories))?|all\s+about\s+me|me"
    r"|所有(?:的)?(?:记忆|事)?|全部(?:的)?(?:记忆)?|一切|所有关于我的(?:事|记忆)?)$"
)
_PRONOUN_ONLY = re.compile(
    r"^(?:it|that|this|them|those|about\s+it|that\s+one|这个|那个|它)$"
    r"|^(?:it|that|this)\s*[,;:!—-]"
)  # "forget that, let's talk about Rust": a turn of speech


def _plain(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).replace("\u2019", "'").strip()
    return re.sub(r"\s+", " ", text).rstrip(" .!?。！？~…")


def parse_command(text: str) -> Command | None:
    """The memory command `text` gives, or None for an ordinary turn."""
    plain = _plain(text)
    lower = plain.casefold()
    if _LIST_EN.search(lower) or _LIST_ZH.search(plain):
        return Command(Intent.LIST)
    target = _forget_target_en(lower, plain) or _forget_target_zh(plain)
    if target is None:
        return None
    if _EVERYTHING.match(target.casefold()):
        return Command(Intent.FORGET, "")
    return Command(Intent.FORGET, target)


def _forget_target_en(lower: str, plain: str) -> str | None:
    found = _FORGET_EN.search(lower)
    if found is None:
        return None
    target = plain[found.start("target") :]  # the user's own casing
    for _round in range(2):
        lead = _TARGET_LEAD_EN.search(target.casefold())
        if lead is None or not lead.group(0):
            break
        target = target[lead.end() :]
    tail = _TARGET_TAIL_EN.search(target.casefold())
    target = target[: tail.start()] if tail else target
    target = target.strip(" ,.;:\"'«»")
    if not target or _PRONOUN_ONLY.match(target.casefold()):
        return None  # "forget it", "forget that, ...": a turn of speech, not a memory named
    return target


def _forget_target_zh(plain: str) -> str | None:
    found = _FORGET_ZH.search(plain) or _FORGET_ZH_BA.search(plain)
    if found is None:
        return None
    raw = found.group("target").strip(" ，,。")
    if not _ZH_ABOUT_USER.search(raw) and "记忆" not in plain:
        return None  # "忘记带钥匙了" is not a command; a memory is about the user or named as one
    target = _TARGET_TAIL_ZH.sub("", raw).strip(" ，,。：:“”\"'«»")
    target = re.sub(r"^关于", "", target)
    if not target or _PRONOUN_ONLY.match(target):
        return None
    return target


# -- answering ----------------------------------------------------------------------------------------

KIND_ORDER = [
    MemoryKind.PREFERENCE,
    MemoryKind.FACT,
    MemoryKind.GOAL,
    MemoryKind.LESSON,
    MemoryKind.CONTEXT,
    MemoryKind.EPISODE,
]
KIND_HEADINGS = {
    MemoryKind.PREFERENCE: gettext_lazy("Preferences"),
    MemoryKind.FACT: gettext_lazy("Facts"),
    MemoryKind.GOAL: gettext_lazy("Goals"),
    MemoryKind.LESSON: gettext_lazy("Lessons"),
    MemoryKind.CONTEXT: gettext_lazy("Context"),
    MemoryKind.EPISODE: gettext_lazy("Past conversations"),
}


def run_command(
    command: Command, user, *, memory_on: bool, temporary: bool, message: str, default_language: str | None = None
) -> CommandReply:
    """Carry out `command` for `user` and say what was done, in the language of `message`."""
    with translation.override(message_language(message, default_language)):
        if temporary:
            return CommandReply(
                _("This is a temporary chat: it neither uses nor changes memories. Ask again in a regular chat."),
                Outcome.OFF,
            )
        if not memory_on:
            return CommandReply(
                _("Memory is off, so I neither keep nor change memories. You can turn it on in [settings](%(url)s).")
                % {"url": reverse("settings")},
                Outcome.OFF,
            )
        if command.intent is Intent.LIST:
            return list_memories(user)
        return forget(user, command.target)


def _current(user) -> list[Memory]:
    return list(
        Memory.objects.filter(user=user, status=MemoryStatus.ACTIVE, valid_until__isnull=True)
        .only("id", "content", "kind")
        .order_by("-importance", "-created_at", "-id")
    )


def list_memories(user) -> CommandReply:
    memories = _current(user)
    page = reverse("memories")
    if not memories:
        return CommandReply(
            _(
                "I don't remember anything about you yet. I learn from what you tell me as we chat, "
                "and you can add memories yourself on [the memories page](%(url)s)."
            )
            % {"url": page},
            Outcome.LISTED,
        )
    lines = [
        ngettext(
            "Here is the %(count)d memory I keep about you:",
            "Here are the %(count)d memories I keep about you:",
            len(memories),
        )
        % {"count": len(memories)}
    ]
    listed: list[int] = []
    for kind in KIND_ORDER:
        of_kind = [m for m in memories if m.kind == kind]
        if not of_kind:
            continue
        lines.append(f"\n**{KIND_HEADINGS[kind]}** ({len(of_kind)})")
        lines += [f"- {quoted(m.content)}" for m in of_kind[:LIST_PER_KIND]]
        listed += [m.pk for m in of_kind[:LIST_PER_KIND]]
        if len(of_kind) > LIST_PER_KIND:
            lines.append("- " + _("…and %(count)d more") % {"count": len(of_kind) - LIST_PER_KIND})
    lines.append(
        "\n"
        + _(
            "See, edit or delete them on [the memories page](%(url)s), or tell me here what to "
            'forget ("forget that …").'
        )
        % {"url": page}
    )
    return CommandReply("\n".join(lines), Outcome.LISTED, listed)


@dataclass(frozen=True)
class Meant:
    items: list[RecalledMemory]  # nearest first
    certain: bool  # one memory, clearly the one named: forget it without asking


# Words that say how, not what ("I like ...", "我喜欢..."): sharing one is no sign of the same memory.
_GENERIC_EN = EN_STOPWORDS | frozenset(
    "like likes liked love loves prefer prefers live lives lived living work works worked working has had "
    "want wants use uses used using enjoy enjoys hate hates called named name i'm im really also still now "
    "memory memories forget".split()
)
_GENERIC_ZH = frozenset("我你他她它的了是在不也都很就还要想有一个这那喜欢爱住用喝吃做去会能叫过着把被给和跟说记忆")


def _telling(text: str) -> tuple[set[str], set[str]]:
    plain = normalise_content(text)
    words = {w.removesuffix("'s") for w in re.findall(r"[a-z0-9][a-z0-9']*", plain)}
    return ({w for w in words if len(w) > 1 and w not in _GENERIC_EN}, set(HAN.findall(plain)) - _GENERIC_ZH)


def _shares_a_telling_word(said: str, content: str) -> bool:
    (said_words, said_han), (words, han) = _telling(said), _telling(content)
    near = any(
        a == b or (min(len(a), len(b)) >= 3 and (a.startswith(b) or b.startswith(a))) for a in said_words for b in words
    )  # "cats" and "cat"
    return near or bool(said_han & han)


def meant_memories(user, target: str) -> Meant:
    """The memories `target` may name, nearest first: one, certain, when it is clearly meant; several when
    they are as close as each other (within MARGIN); none when nothing is close (RECALL_MEMORY_COMMAND)."""
    from ..recall.recall import recall

    items = recall(user, target, config=RECALL_MEMORY_COMMAND, record_access=False).items
    if not items:
        return Meant([], certain=False)
    key = normalise_content(target)
    same = [item for item in items if normalise_content(item.memory.content) == key]
    if same:
        return Meant(same[:1], certain=True)
    items = sorted(items, key=lambda item: item.cosine, reverse=True)
    best = items[0]
    close = [item for item in items if item.cosine >= best.cosine - MARGIN][:ASK_AT_MOST]
    certain = (
        len(close) == 1
        and best.cosine >= CERTAIN
        and (best.cosine >= SAME or _shares_a_telling_word(target, best.memory.content))
    )
    return Meant(close, certain)


def forget(user, target: str, *, note: str = "forgotten in a chat") -> CommandReply:
    page = reverse("memories")
    if not target:
        return CommandReply(
            _('To forget everything at once, use "Clear all" on [the memories page](%(url)s); it can be undone there.')
            % {"url": page},
            Outcome.EVERYTHING,
        )
    meant = meant_memories(user, target)
    if not meant.items:
        return CommandReply(
            _(
                "I found nothing matching «%(target)s» in your memories, so nothing was forgotten. "
                "[The memories page](%(url)s) lists them all."
            )
            % {"target": quoted(target), "url": page},
            Outcome.NOTHING,
        )
    if not meant.certain:
        if len(meant.items) > 1:
            ask = _("More than one memory matches «%(target)s». Which one should I forget?")
        else:
            ask = _(
                "I found no memory that says «%(target)s» as such. Is it this one? Nothing is forgotten "
                "until you choose."
            )
        lines = [ask % {"target": quoted(target)}]
        lines += [f"{n}. {quoted(item.memory.content)}" for n, item in enumerate(meant.items, start=1)]
        return CommandReply("\n".join(lines), Outcome.ASK, [item.memory.pk for item in meant.items])
    memory = write.delete_memory(meant.items[0].memory, actor=Actor.USER, note=note).memory
    return CommandReply(
        _(
            "Forgotten: «%(content)s». It no longer comes up in our chats; undo it below, or restore "
            "it later on [the memories page](%(url)s)."
        )
        % {"content": quoted(memory.content), "url": page},
        Outcome.FORGOT,
        [memory.pk],
    )
