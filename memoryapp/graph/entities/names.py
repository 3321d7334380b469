"""One spelling per entity, so "Dr. Chen", "chen" and "Chen's" meet, and ＡＷＳ is AWS: the key that
entity resolution compares first (before any embedding) and that bench.entities scores on."""

from __future__ import annotations

import re
import unicodedata

# Titles and family words said before a name ("Dr. Chen", "Aunt Linda"); the name is what remains.
EN_TITLES = (
    "dr",
    "doctor",
    "mr",
    "mrs",
    "ms",
    "miss",
    "prof",
    "professor",
    "sir",
    "dame",
    "aunt",
    "auntie",
    "uncle",
    "grandma",
    "grandpa",
    "granny",
    "nana",
    "coach",
    "the",
    "project",
)
_EN_TITLE = re.compile(r"^(?:(?:{})\.?\s+)+".format("|".join(EN_TITLES)))
# Said after a Chinese surname: 李医生, 杨总, 刘老师, 张建国教授.
ZH_TITLES = ("医生", "大夫", "老师", "教授", "先生", "女士", "小姐", "总", "经理", "主任", "师傅", "阿姨", "叔叔")
_ZH_TITLE = re.compile(r"(?<=.)(?:{})$".format("|".join(ZH_TITLES)))
_POSSESSIVE = re.compile(r"(?:'s|’s|'|’)$")
_PROJECT_WORDS = re.compile(r"\s+(?:project|migration|rewrite)$|(?<=.)(?:项目|计划)$")
_SPACES = re.compile(r"\s+")
_QUOTES = "\"'“”‘’「」『』《》"


def normalise_name(name: str) -> str:
    """Full-width to half-width, case folded, quotes, titles, possessive and "project" dropped,
    spaces collapsed: "Dr. Chen's" -> "chen", “北极星”项目 -> "北极星", "Ｍａｃ" -> "mac"."""
    text = unicodedata.normalize("NFKC", name).strip().strip(_QUOTES).casefold()
    text = _POSSESSIVE.sub("", text)
    text = _EN_TITLE.sub("", text)
    text = _PROJECT_WORDS.sub("", text)
    text = _ZH_TITLE.sub("", text)
    return _SPACES.sub(" ", text.strip(_QUOTES + " .,")).strip()
