"""Names in Chinese: jieba's part-of-speech tags mark people (nr), places (ns), organisations (nt) and
other proper nouns (nz); the gazetteer names what jieba splits (字节|跳动) or tags wrong (华为 as a person);
quotes mark projects (“北极星”项目) and works (《三体》); a name before …大学/…银行 is an organisation,
a city before its …区 one place; a word after a relation (我同事韩梅梅) or before a title (李医生) a person.
English words inside are left to english.py."""
from __future__ import annotations

import logging
import re
from dataclasses import dataclass

import jieba
import jieba.posseg

from . import chinese_cues as cues
from .entity import Entity, EntityType
from .gazetteer import ZH_SURNAMES
from .known import fold, known, longest

jieba.setLogLevel(logging.WARNING)

_CJK = re.compile(r"[\u3400-\u9fff]")
_QUOTED = re.compile(r"“([^”]{1,12})”|「([^」]{1,12})」|\"([^\"]{1,12})\"|《([^》]{1,20})》")
_NOUNISH = ("n", "ns", "nr", "nz", "nt", "vn", "j", "nrt", "nrfg", "m", "eng", "l", "a")
_PERSON_TAGS = ("nr", "nrfg", "nrt")


@dataclass
class Word:
    text: str
    flag: str
    start: int

    @property
    def end(self) -> int:
        return self.start + len(self.text)


def words_of(text: str) -> list[Word]:
    out, at = [], 0
    for pair in jieba.posseg.cut(text):
        out.append(Word(pair.word, pair.flag, at))
        at += len(pair.word)
    return out


def extract_chinese(text: str) -> list[Entity]:
    if not _CJK.search(text):
        return []
    words = words_of(text)
    found: list[Entity] = []
    taken = [False] * len(text)

    def add(start: int, end: int, kind: EntityType, name: str | None = None) -> None:
        if any(taken[start:end]):
            return
        for k in range(start, end):
            taken[k] = True
        found.append(Entity(name or text[start:end], kind, (start, end)))

    for match in _QUOTED.finditer(text):
        inner = next(g for g in match.groups() if g)
        start = match.start() + 1
        kind = EntityType.PRODUCT if match.group(4) else EntityType.PROJECT
        if kind is EntityType.PROJECT and fold(inner) in known():
            kind = known()[fold(inner)][0]
        add(start, start + len(inner), kind)
    _known_names(text, words, add)
    _organisations(words, add)
    _people(words, add)
    _places(words, add)
    _projects(words, add)
    return found


def _known_names(text: str, words: list[Word], add) -> None:
    """Gazetteer names that begin and end on jieba's word boundaries (not 美的 in 美的东西), longest first."""
    starts = {w.start for w in words}
    ends = {w.end for w in words}
    _, most = longest()
    for start in sorted(starts):
        if not _CJK.match(text, start):
            continue
        for end in range(min(len(text), start + most), start + 1, -1):
            name = fold(text[start:end])
            if end in ends and name in known() and _CJK.search(name):
                kind = known()[name][0]
                after = text[end:end + 3]
                if kind is EntityType.ORGANIZATION and len(known()[name]) > 1 and re.match(r"(上|里|买|订)", after):
                    kind = EntityType.PRODUCT
                add(start, end, kind)
                break


def _organisations(words: list[Word], add) -> None:
    """jieba's nt, and a name followed by an organisation's suffix: 星展|银行, 海淀|实验|小学."""
    for i, word in enumerate(words):
        if word.flag == "nt":
            add(word.start, word.end, EntityType.ORGANIZATION)
            continue
        if not word.text.endswith(cues.ORG_SUFFIXES):
            continue
        first = i
        while first > 0 and i - first < 4 and words[first - 1].flag in _NOUNISH and _CJK.search(words[first - 1].text):
            first -= 1
        if first < i or len(word.text) > max(len(s) for s in cues.ORG_SUFFIXES if word.text.endswith(s)):
            add(words[first].start, word.end, EntityType.ORGANIZATION)


def _people(words: list[Word], add) -> None:
    for i, word in enumerate(words):
        text = word.text
        previous = words[i - 1].text.strip() if i else ""
        after_relation = previous.endswith(cues.RELATIONS) or (i > 1 and words[i - 1].text.isspace()
                                                              and words[i - 2].text.endswith(cues.RELATIONS))
        surname = text[:1] in ZH_SURNAMES
        if not _CJK.search(text) or len(text) > 4:
            continue
        if word.flag in _PERSON_TAGS and (surname or after_relation or text[:1] in "小老阿") and len(text) >= 2:
            add(word.start, word.end, EntityType.PERSON)
        elif len(text) == 2 and text[0] in "老小阿" and (text[1] in ZH_SURNAMES or after_relation) and word.flag != "n":
            add(word.start, word.end, EntityType.PERSON)
        elif after_relation and surname and 2 <= len(text) <= 3 and word.flag not in ("v", "p", "r", "d", "c", "uj"):
            add(word.start, word.end, EntityType.PERSON)
        elif after_relation and surname and 2 <= len(text) <= 3 and previous.endswith(("叫",)):
            add(word.start, word.end, EntityType.PERSON)
        elif len(text) == 1 and text in ZH_SURNAMES and i + 1 < len(words) and words[i + 1].text in cues.TITLES:
            add(word.start, words[i + 1].end, EntityType.PERSON)
        elif after_relation and surname and 2 <= len(text) <= 3 and word.flag == "d":
            add(word.start, word.end, EntityType.PERSON)


def _places(words: list[Word], add) -> None:
    """jieba's ns; a city and its district written together are one place (杭州滨江区)."""
    i = 0
    while i < len(words):
        word = words[i]
        if word.flag == "ns" and _CJK.search(word.text):
            end = word.end
            if i + 1 < len(words) and words[i + 1].flag == "ns" and words[i + 1].text.endswith(cues.DISTRICT_SUFFIXES):
                end = words[i + 1].end
                i += 1
            add(word.start, end, EntityType.PLACE)
        i += 1


def _projects(words: list[Word], add) -> None:
    """A proper-looking word before 项目/计划 (星火项目): a project."""
    for i, word in enumerate(words[1:], start=1):
        if word.text not in ("项目", "计划"):
            continue
        name = words[i - 1]
        if (2 <= len(name.text) <= 4 and _CJK.search(name.text) and name.flag in _NOUNISH
                and name.text not in cues.GENERIC_BEFORE_PROJECT):
            add(name.start, name.end, EntityType.PROJECT)
