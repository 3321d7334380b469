"""Writes bench/extraction_cases/train/sentences.jsonl from the hand-written parts (extraction_parts.py):
each template's alternatives expanded, a few picked per template, each said in a register (plain, casual,
terse, formal, emotional, emoji) and some put before a question or a request, as people give context
in passing. Deterministic: the same seed writes the same file.

    python -m bench.train.extraction_corpus
"""

from __future__ import annotations

import itertools
import json
import random
import re
from pathlib import Path

from .extraction_parts import MIXED, NEGATIVE, POSITIVE

OUT = Path(__file__).resolve().parents[1] / "extraction_cases" / "train" / "sentences.jsonl"
PER_TEMPLATE = 20  # expansions kept per template: more repeats the template's skeleton
SEED = 20261125
_ALTERNATIVES = re.compile(r"\{([^{}]*)\}")

# Questions and requests a memory is said before ("I'm vegetarian, what should I cook tonight?").
TAILS = {
    "en": [
        "what should I cook tonight?",
        "any ideas?",
        "can you help me plan the week?",
        "what would you suggest?",
        "so what's a good option?",
        "how should I start?",
        "could you recommend something?",
        "so please keep that in mind",
        "any tips?",
        "what do you think I should do?",
        "which one should I get?",
        "is that normal?",
    ],
    "zh": [
        "今晚吃什么好？",
        "有什么建议吗？",
        "帮我安排一下这周吧",
        "你觉得呢？",
        "怎么开始比较好？",
        "推荐几个吧",
        "以后注意一下",
        "有什么办法吗？",
        "该选哪个？",
        "这正常吗？",
        "帮我看看",
    ],
}
PREVIOUS = {  # the assistant turn before, when there is one
    "en": [
        "How can I help?",
        "Anything else?",
        "Which one did you pick?",
        "What are you working on these days?",
        "Got it.",
        "Here's the summary you asked for.",
        "Sure, here you go.",
        "How was your weekend?",
    ],
    "zh": [
        "有什么可以帮你？",
        "还有别的吗？",
        "你选了哪个？",
        "最近在忙什么？",
        "好的。",
        "这是你要的总结。",
        "给你整理好了。",
        "周末过得怎么样？",
    ],
}
REGISTERS = {
    "en": {
        "casual": (["", "tbh ", "ok so ", "lol "], ["", " lol", " haha", " tbh"]),
        "terse": (["fyi ", "", "btw "], [" btw", "", " fyi"]),
        "formal": (["For context, ", "Just so you know, ", "For your reference, ", "To be clear, "], ["."]),
        "emotional": (["ugh, ", "honestly, ", "man, ", "seriously, "], ["!", "...", ". so annoying"]),
        "emoji": ([""], [" 😅", " 🙃", " ☕", " 👍", " 😭", " 🙏"]),
    },
    "zh": {
        "casual": (["", "话说", "对了，", "哈哈"], ["", "哈", "啦", "~"]),
        "terse": (["顺便说下，", "", "补充："], ["", "。"]),
        "formal": (["说明一下，", "补充一点，", "先说一下背景，"], ["。"]),
        "emotional": (["唉，", "真的是，", "救命，", "说实话，"], ["！", "…", "，烦死了"]),
        "emoji": ([""], ["😅", "🙃", "☕", "👍", "😭", "🙏"]),
    },
}


def expand(template: str) -> list[str]:
    groups = [g.split("|") for g in _ALTERNATIVES.findall(template)]
    parts = _ALTERNATIVES.split(template)  # literal, group, literal, group, ...
    out = []
    for choice in itertools.product(*groups):
        text = "".join(p if i % 2 == 0 else choice[i // 2] for i, p in enumerate(parts))
        out.append(" ".join(text.split()).replace(" ,", ","))
    return out


def _plain(text: str, language: str, rng: random.Random) -> str:
    """Capitalised, ending on a full stop, an exclamation mark or nothing (the ending says nothing of
    whether it is worth remembering: a model must not learn it does)."""
    if text[-1] in "。！？~.!?":
        return text
    if language == "zh":
        return text + rng.choice(["。", "。", "！", ""])
    return text[0].upper() + text[1:] + rng.choice([".", ".", "!", ""])


def dress(text: str, language: str, rng: random.Random) -> tuple[str, str]:
    """The sentence in a register; (register, text)."""
    base = "zh" if language == "zh" else "en"
    register = rng.choice(["plain", "plain", "casual", "terse", "formal", "emotional", "emoji"])
    if register == "plain":
        return register, _plain(text, base, rng)
    heads, tails = REGISTERS[base][register]
    said = rng.choice(heads) + text + rng.choice(tails)
    if register == "casual" and base == "en":
        said = said.lower()
    return register, said


def _questioned(text: str, language: str, rng: random.Random) -> str:
    """Context given before a question or a request."""
    if language == "zh":
        return f"{text}，{rng.choice(TAILS['zh'])}"
    return f"{text}, {rng.choice(TAILS['en'])}"


def rows(seed: int = SEED) -> list[dict]:
    rng = random.Random(seed)
    items: list[tuple[str, str, str]] = []  # (label, language, template)
    for kind, by_language in POSITIVE.items():
        items += [(kind, language, t) for language, templates in by_language.items() for t in templates]
    items += [(label, "mixed", t) for label, templates in MIXED.items() for t in templates]
    items += [("none", language, t) for language, templates in NEGATIVE.items() for t in templates]
    out: list[dict] = []
    for label, language, template in items:
        variants = expand(template)
        rng.shuffle(variants)
        for text in variants[:PER_TEMPLATE]:
            register, said = dress(text, language, rng)
            if label != "none" and rng.random() < 0.2:  # the memory said before a question: only the clause counts
                said = _questioned(text, language, rng)
                register = "context_then_question"
            prev = rng.choice(PREVIOUS["zh" if language == "zh" else "en"]) if rng.random() < 0.5 else ""
            out.append(
                {
                    "id": f"tr-{len(out):05d}",
                    "language": language,
                    "register": register,
                    "label": label,
                    "text": said,
                    "previous_assistant": prev,
                }
            )
    return out


def write(path: Path = OUT) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows()), encoding="utf-8")
    return path


if __name__ == "__main__":
    print(write())
