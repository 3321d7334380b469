"""Which language a reply is in: the language of the user's message, judged by its words.

A Chinese sentence that names Latin-script products ("我们项目用 Drizzle ORM 还是 Prisma ORM？") is
Chinese: each Chinese character counts as much as a whole Latin word, since the grammar around the
names is Chinese. An English sentence that quotes a Chinese word ("How do I say 谢谢 in a letter?") is
English. Where the message cannot tell (no letters at all, or as many of each), the page's language
decides.
"""

from __future__ import annotations

import re

from django.utils import translation

from memoryapp.lib.scripts import HAN

ZH, EN = "zh-hans", "en"
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z'\u2019-]*")
ENGLISH_OVER_CHINESE = 2  # Latin words per Chinese character above which a mixed message is English


def message_language(text: str, default: str | None = None) -> str:
    """`zh-hans` or `en` for a reply to `text`; `default` (else the active UI language) when unclear."""
    han, words = len(HAN.findall(text)), len(_LATIN_WORD.findall(text))
    if han and han >= words:
        return ZH
    if words > ENGLISH_OVER_CHINESE * han:
        return EN
    fallback = default or translation.get_language() or EN
    return ZH if fallback.lower().startswith("zh") else EN
