"""What the change model sees of (a new statement, an existing memory): how close their vectors are, and a
few cheap facts about the words. The same function builds the rows at training (bench/train/changes.py)
and in the app, so what was measured is what runs.

Cue words are features, not rules: "now" or 换 says nothing alone ("I also use it now and then"), but
beside a close neighbour that names the same slot it weighs toward a change.
"""

from __future__ import annotations

import re

import numpy as np

from memoryapp.lib.scripts import HAN_RANGES

# A new value for the old one: moving, switching, leaving, stopping, starting anew. Not "new" / 新: it is
# mostly news about the thing itself ("马自达出了新款", "Chrome 又出新版本了"), which replaced it wrongly.
_CHANGE_EN = re.compile(
    r"\b(?:now|instead|switched|switch|moved|move|relocated|joined|left|quit|dropped|ditched|gave up|gone back"
    r"|went|no longer|anymore|any more|not \w+ anymore|stopped|replaced|migrated|rewrote|traded|sold|since"
    r"|became|become|started|finally|got promoted|promoted|turned|changed|converted|over|done with|off|out"
    r"|back to|scrapped|forget|these days|from now on|actually)\b",
    re.I,
)
_CHANGE_ZH = re.compile(
    r"现在|改|换|搬|不再|不\S{0,3}了|已经|跳槽|离开|入职|戒|转|调到|迁|停了|放弃|卖了|终于|以后"
    r"|上岸|变成|过了|分手|分了|离婚|走了|推迟|去了|出来了"
)
# An addition or another person's thing: the same topic, not the same slot.
_ALSO = re.compile(r"\b(?:also|too|as well|another|either|both)\b|也|还(?!是)|另外|顺便", re.I)
_SOMEONE_ELSE = re.compile(
    r"\b(?:my|our) (?:\w+ )?(?:sister|brother|friend|mum|mom|dad|father|mother|parents|wife|husband|partner|son"
    r"|daughter|kids?|boss|colleague|coworker|cousin|uncle|aunt|neighbou?r|roommate|team lead|manager|intern"
    r"|trainer|in-laws)\b|\b\w+'s\b|\b(?:he|she|they)\b"
    r"|(?:我|俺)?(?:姐姐|妹妹|哥哥|弟弟|表\S|堂\S|妈|爸|老公|老婆|媳妇|儿子|女儿|孩子|朋友|同事|同学|邻居|室友|老板"
    r"|领导|组长|舅舅|姑姑|叔叔|阿姨|公婆|爸妈|实习生|教练)|(?:他|她|他们)",
    re.I,
)
# Someone or something else as the subject ("my sister got…", "the Volvo got…", "我哥刚搬到…"); not the
# user, who starts in the first person or not at all ("moved to Denver", "搬到佛山了"). A capital at the
# start is no sign: English sentences start with one.
_OTHER_SUBJECT = re.compile(
    r"^\s*(?:the|his|her|their)\b|^\s*(?:my|our) (?:old |best |new )?"
    r"(?:sister|brother|friend|mum|mom|dad|parents|wife|husband|son|daughter|boss|colleague|"
    r"coworker|teammate|neighbou?r|roommate|client|cousin)(?! and I)|^\s*(?:我|俺)?(?:姐姐|妹妹|哥|弟|爸|妈"
    r"|老公|老婆|儿子|女儿|朋友|同事|邻居|室友|客户|以前的同事|好朋友)|^\s*[^我俺\s]{1,4}(?:把|刚|又|上周)",
    re.I,
)
# Naming the old value and the new one: "from Angular to Svelte", "X 换成 Y".
_FROM_TO = re.compile(
    r"\bfrom \S+(?: \S+)? to\b|\binstead of\b|\bswitched to\b|\bmoved to\b|\bfor good\b"
    r"|换成|改成|改用|改喝|改学|迁到|搬到|调到|跳槽到|转到|换到",
    re.I,
)
_NEGATION = re.compile(r"\b(?:not|no|never|don't|doesn't|can't|isn't|aren't|won't)\b|不|没|别", re.I)
_TOKEN = re.compile(rf"[a-z0-9][a-z0-9+#.\-]*|[{HAN_RANGES}]+")
_NAME = re.compile(
    rf"\b[A-Z][A-Za-z0-9+#.\-]*|[A-Za-z][A-Za-z0-9+#.\-]*(?=[^A-Za-z]*[{HAN_RANGES}])|(?<=[{HAN_RANGES}])\s*[A-Za-z][A-Za-z0-9+#.\-]*"
)
# Frozen by name: the shipped change model was trained on features built with exactly these words; the
# shared vocabulary (engine/text.py EN_STOPWORDS) differs, and using it would mean retraining.
CHANGE_MODEL_STOPWORDS = frozenset(
    "i i'm im me my we our a an the is am are was be to of in on at for with and or but it its this that "
    "so just really very".split()
)

SCALARS = (
    "cosine",
    "same_kind",
    "change_cues",
    "also",
    "someone_else",
    "negation",
    "old_covered",
    "new_novel",
    "jaccard",
    "old_name_in_new",
    "new_name_not_in_old",
    "length_ratio",
    "identical",
    "change_cues*cosine",
    "change_cues*old_covered",
    "someone_else*cosine",
    "other_subject",
    "from_to",
    "other_subject*change_cues",
    "old_and_new_name",
)


def says_a_change(text: str) -> bool:
    """A change word: "now", "left", "switched", 搬到, 换成..."""
    return bool(_CHANGE_EN.search(text) or _CHANGE_ZH.search(text))


def old_covered(new: str, old: str) -> float:
    """The share of the old memory's words the statement says again."""
    b = tokens(old)
    return len(tokens(new) & b) / max(len(b), 1)


def other_subject(text: str) -> bool:
    """Someone or something else opens the sentence ("my sister moved…", "我哥刚搬到…")."""
    return bool(_OTHER_SUBJECT.search(text))


def adds(text: str) -> bool:
    """An addition ("also", "another", 也, 还): a second item, not a new value."""
    return bool(_ALSO.search(text))


def not_the_users(new: str) -> bool:
    """Another person or thing as the subject, or an addition: the statement is not a change of the user's own."""
    return bool(_SOMEONE_ELSE.search(new) or _ALSO.search(new) or _OTHER_SUBJECT.search(new))


def tokens(text: str) -> set[str]:
    """Latin words, and Chinese runs as overlapping pairs of characters (a rough word without a segmenter)."""
    found: set[str] = set()
    for token in _TOKEN.findall(text.lower()):
        if token[0] >= "\u3400":
            found |= {token[i : i + 2] for i in range(len(token) - 1)} or {token}
        elif token not in CHANGE_MODEL_STOPWORDS:
            found.add(token.strip(".-"))
    return found - {""}


def _names(text: str) -> set[str]:
    return {n.strip().lower().strip(".-") for n in _NAME.findall(text)} - {"i", ""}


def scalars(new: str, new_kind: str, old: str, old_kind: str, cosine: float) -> list[float]:
    a, b = tokens(new), tokens(old)
    shared = a & b
    new_names, old_names = _names(new), _names(old)
    cues = min(len(_CHANGE_EN.findall(new)) + len(_CHANGE_ZH.findall(new)), 3)
    someone_else = float(bool(_SOMEONE_ELSE.search(new)))
    old_covered = len(shared) / max(len(b), 1)
    other_subject = float(bool(_OTHER_SUBJECT.search(new)))
    return [
        cosine,
        float(new_kind == old_kind),
        float(cues),
        float(bool(_ALSO.search(new))),
        someone_else,
        float(bool(_NEGATION.search(new))) - float(bool(_NEGATION.search(old))),
        old_covered,
        len(a - b) / max(len(a), 1),
        len(shared) / max(len(a | b), 1),
        float(bool(old_names & new_names)),
        float(bool(new_names - old_names)),
        min(len(new) / max(len(old), 1), 4.0),
        float(" ".join(new.lower().split()).rstrip(".。") == " ".join(old.lower().split()).rstrip(".。")),
        cues * cosine,
        cues * old_covered,
        someone_else * cosine,
        other_subject,
        float(bool(_FROM_TO.search(new))),
        other_subject * cues,
        float(bool(old_names & new_names) and bool(new_names - old_names)),
    ]


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b) or 1.0))


def row(new: str, new_kind: str, old: str, old_kind: str, v_new: np.ndarray, v_old: np.ndarray) -> np.ndarray:
    """One pair's features. The vectors enter through their cosine only: with their product and distance
    per dimension (1,024 more columns) the model learnt the training topics and did worse on dev
    (docs/benchmarks/learning.md, "Change detection")."""
    return np.array(scalars(new, new_kind, old, old_kind, cosine(v_new, v_old)))
