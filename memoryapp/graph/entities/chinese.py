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

from memoryapp.lib.scripts import HAN

from . import chinese_cues as cues
from .entity import Entity, EntityType
from .gazetteer import ZH_SURNAMES
from .known import fold, known, longest

jieba.setLogLevel(logging.WARNING)

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


# Characters that stand alone as words in ordinary sentences; two other single characters side by side
# are what is left of a word the dictionary lacks (a name: 韩|梅|梅), which only the HMM pass can join.
_FUNCTION_CHARS = frozenset(
    "我你他她它的了是在和也就都着或把被让给从到为以上下中里之其很还去来用做有会要对跟与"
    "这那个年月日天号一二三四五六七八九十两几多少每再又才只最更太没不别吗呢吧啊呀嘛哦"
    "，。！？、；：“”‘’（）《》 "
)


def words_of(text: str) -> list[Word]:
    """jieba's words and tags; its slower HMM pass (unknown words, mostly names) only when the dictionary
    pass left two unknown-looking single characters side by side."""
    pairs = list(jieba.posseg.cut(text, HMM=False))
    if _has_unknown_word(pairs):
        pairs = list(jieba.posseg.cut(text))
    out, at = [], 0
    for pair in pairs:
        out.append(Word(pair.word, pair.flag, at))
        at += len(pair.word)
    return out


def _has_unknown_word(pairs) -> bool:
    single = [len(p.word) == 1 and bool(HAN.match(p.word)) and p.word not in _FUNCTION_CHARS for p in pairs]
    return any(a and b for a, b in zip(single, single[1:]))


def extract_chinese(text: str) -> list[Entity]:
    if not HAN.search(text):
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
    """Gazetteer names that begin and end on jieba's word boundaries (not 美的 in 美的东西), longest first;
    a word jieba did not split that is wholly made of them is split (美国纽约 -> 美国, 纽约); a place
    takes the district written after it (广州天河区), a maker the model (小米 14)."""
    starts = {w.start: n for n, w in enumerate(words)}
    ends = {w.end for w in words}
    _, most = longest()
    for start in sorted(starts):
        for end in range(min(len(text), start + most), start + 1, -1):
            name = fold(text[start:end])
            if end in ends and name in known() and HAN.search(name):
                kind = _known_type(known()[name], text[max(0, start - 6) : start], text[end : end + 6])
                following = words[starts[start] :]
                nxt = next((w for w in following if w.start >= end), None)
                if (
                    kind is EntityType.PLACE
                    and nxt
                    and nxt.start == end
                    and len(nxt.text) >= 2
                    and nxt.text.endswith(cues.DISTRICT_SUFFIXES)
                ):
                    end = nxt.end
                elif kind in (EntityType.ORGANIZATION, EntityType.PRODUCT):
                    model = _MODEL.match(text, end)
                    if model:
                        end, kind = model.end(), EntityType.PRODUCT
                add(start, end, kind)
                break
    for word in words:
        parts = _split_known(word.text)
        if len(parts) > 1:
            at = word.start
            for part in parts:
                add(at, at + len(part), known()[fold(part)][0])
                at += len(part)


_MODEL = re.compile(
    r"\s?(?:[A-Za-z]*\d[\w\-]*(?:\s(?:Pro|Max|Plus|Ultra|mini|Air))?|Model [A-Z0-9]|[A-Z][a-z]+ ?\d+|音乐)(?![\w])"
)


def _known_type(types: tuple[EntityType, ...], before: str, after: str) -> EntityType:
    if len(types) > 1:
        return cues.type_of_latin_in_chinese(before, after) or types[0]
    return types[0]


def _split_known(word: str) -> list[str]:
    """`word` as a sequence of two or more gazetteer names, or []."""
    if not HAN.search(word) or len(word) < 4:
        return []
    for cut in range(2, len(word) - 1):
        head, tail = word[:cut], word[cut:]
        if fold(head) in known() and fold(tail) in known():
            return [head, tail]
    return []


def _organisations(words: list[Word], add) -> None:
    """jieba's nt, and a name followed by an organisation's suffix: 星展|银行, 海淀|实验|小学."""
    for i, word in enumerate(words):
        if word.flag == "nt" and word.text not in cues.NOT_NAMES and not word.text.endswith(("同学", "同事")):
            add(word.start, word.end, EntityType.ORGANIZATION)
            continue
        if not word.text.endswith(cues.ORG_SUFFIXES):
            continue
        first = i
        while first > 0 and i - first < 4 and words[first - 1].flag in _NOUNISH and HAN.search(words[first - 1].text):
            first -= 1
        if first < i or len(word.text) > max(len(s) for s in cues.ORG_SUFFIXES if word.text.endswith(s)):
            add(words[first].start, word.end, EntityType.ORGANIZATION)


def _people(words: list[Word], add) -> None:
    """jieba's person tags on a word that looks like a name (a surname first, or after a relation word);
    a surname and given name jieba split (刘|志远); 老周, 小林; a name after 我同事, 叫; 李医生, 杨总."""
    for i, word in enumerate(words):
        text = word.text
        previous = words[i - 1].text.strip() if i else ""
        if i > 1 and words[i - 1].text.isspace():
            previous = words[i - 2].text
        after_relation = previous.endswith(cues.RELATIONS)
        surname = text[:1] in ZH_SURNAMES
        if not HAN.search(text) or len(text) > 4 or text in cues.NOT_NAMES:
            continue
        nxt = words[i + 1] if i + 1 < len(words) else None
        if (
            len(text) == 1
            and surname
            and nxt
            and nxt.flag in _PERSON_TAGS
            and len(nxt.text) <= 2
            and HAN.search(nxt.text)
            and nxt.text not in cues.TITLES
        ):
            add(word.start, nxt.end, EntityType.PERSON)  # 刘|志远, 张|秀英
        elif len(text) == 1 and surname and nxt and nxt.text in cues.TITLES:
            add(word.start, nxt.end, EntityType.PERSON)  # 刘|老师
        elif word.flag in _PERSON_TAGS and len(text) >= 2 and (surname or after_relation or text[:1] in "小老阿"):
            if text.endswith(cues.TITLES) and len(text) > 3 and not text.endswith("总"):
                title = next(t for t in cues.TITLES if text.endswith(t))
                add(word.start, word.end - len(title), EntityType.PERSON)  # 刘志远教授
            else:
                add(word.start, word.end, EntityType.PERSON)
        elif (
            len(text) == 2 and text[0] in "老小阿" and text[1] in ZH_SURNAMES and word.flag not in ("n", "a", "d", "m")
        ):
            add(word.start, word.end, EntityType.PERSON)
        elif after_relation and len(text) == 2 and (text[0] in "老小阿" or text[0] == text[1]):
            add(word.start, word.end, EntityType.PERSON)  # 我儿子乐乐, 我朋友小林
        elif (
            after_relation
            and surname
            and 2 <= len(text) <= 3
            and word.flag not in ("v", "p", "r", "c", "uj", "n", "vn", "m", "t", "f")
        ):
            add(word.start, word.end, EntityType.PERSON)


def _places(words: list[Word], add) -> None:
    """jieba's ns, where a place is plausible: a place's suffix (…市, …山), after 去/在/住在, or before 人
    (湖南人); a city and its district written together are one place (杭州滨江区)."""
    for i, word in enumerate(words):
        text = word.text
        if text.endswith("人") and len(text) >= 3 and fold(text[:-1]) in known():
            add(word.start, word.end - 1, EntityType.PLACE)
            continue
        if word.flag != "ns" or not HAN.search(text) or len(text) < 2:
            continue
        previous = words[i - 1].text if i else ""
        if not (text.endswith(_PLACE_SUFFIXES) or previous.endswith(cues.PLACE_VERBS) or words[i - 1].flag == "ns"):
            continue
        end = word.end
        if i + 1 < len(words) and words[i + 1].text.endswith(cues.DISTRICT_SUFFIXES) and len(words[i + 1].text) >= 2:
            end = words[i + 1].end
        add(word.start, end, EntityType.PLACE)


_PLACE_SUFFIXES = (
    "市",
    "省",
    "区",
    "县",
    "镇",
    "村",
    "路",
    "街",
    "山",
    "湖",
    "河",
    "江",
    "岛",
    "湾",
    "州",
    "城",
    "港",
    "峰",
)


def _projects(words: list[Word], add) -> None:
    """A proper-looking word before 项目/计划 (星火项目): a project."""
    for i, word in enumerate(words[1:], start=1):
        if word.text not in ("项目", "计划"):
            continue
        name = words[i - 1]
        if (
            2 <= len(name.text) <= 4
            and HAN.search(name.text)
            and name.flag in _NOUNISH
            and name.text not in cues.GENERIC_BEFORE_PROJECT
        ):
            add(name.start, name.end, EntityType.PROJECT)
