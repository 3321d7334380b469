"""Which writing system a text is in: the one definition of Chinese (Han) and CJK characters.

Han is what "Chinese" means to the app (a reply's language, a memory's language, a character share);
CJK adds kana and hangul, the other scripts written without spaces between words.
"""

from __future__ import annotations

import re

HAN_RANGES = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
CJK_RANGES = HAN_RANGES + "\u3040-\u30ff\uac00-\ud7af"
# Full-width punctuation and symbols: ideographic space and marks, CJK brackets, full-width forms.
CJK_PUNCTUATION_RANGES = "\u3000-\u303f\uff00-\uffef"

HAN = re.compile(f"[{HAN_RANGES}]")
HAN_RUN = re.compile(f"[{HAN_RANGES}]+")
CJK = re.compile(f"[{CJK_RANGES}]")
LATIN = re.compile(r"[A-Za-z]")


def has_han(text: str) -> bool:
    return bool(HAN.search(text))


def has_cjk(text: str) -> bool:
    return bool(CJK.search(text))


def is_mostly_cjk(text: str) -> bool:
    """Chinese enough to be written without spaces: one Chinese character says more than one letter."""
    han, latin = len(HAN.findall(text)), len(LATIN.findall(text))
    return han > 0 and han / (han + latin) >= 0.3
