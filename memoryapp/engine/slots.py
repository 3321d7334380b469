"""The slot a statement about the user fills: where they live, where and as what they work, whom they
report to, their partner, pets, diet, car, phone, school. A new value for a slot replaces the old memory
of that slot; a statement can only replace a memory of the same slot (a new job never replaces a home).

Typed slot words in both languages, as a person reads them. A statement with no slot word is left to the
change model; so is one whose slots overlap the old memory's.
"""
from __future__ import annotations

import re

_SLOT_WORDS: dict[str, str] = {
    "home": r"\b(?:live[sd]? in|living in|based in|mov(?:ed|ing|e) (?:to|back to|out of|into)|relocat\w* to|my (?:flat|apartment|house|home|neighbou?rhood)|(?:flat|apartment|house) in)\b"
            r"|住在|住的地方|搬(?:到|去|回|家|离)|定居|租(?:了|的)?房|我家在|落户",
    "work": r"\b(?:work(?:ing|s)? (?:at|for|as|in)|job|employer|company|joined|hired|promoted|position|role at|quit|resigned"
            r"|engineer|developer|designer|nurse|teacher|doctor at|intern(?:ship)?|freelanc\w*|career)\b"
            r"|工作|上班|跳槽|入职|辞职|离职|公司|职位|岗位|实习|做(?:前端|后端|全栈|开发|设计|产品|运营|销售|老师|医生|护士)|当(?:老师|医生|护士|程序员)|程序员|转行",
    "manager": r"\b(?:manager|boss|supervisor|report(?:s|ing)? to|team lead)\b|老板|领导|上司|经理|主管|组长",
    "partner": r"\b(?:wife|husband|partner|girlfriend|boyfriend|fianc[ée]e?|married|divorced|engaged|single)\b"
               r"|老婆|老公|妻子|丈夫|女朋友|男朋友|对象|结婚|离婚|订婚|单身",
    "pet": r"\b(?:dog|cat|puppy|kitten|pet|hamster|rabbit|parrot)s?\b|狗|猫|宠物|仓鼠|兔子|鹦鹉",
    "diet": r"\b(?:vegetarian|vegan|pescatarian|meat|keto|gluten|dairy|diet)\b|吃素|素食|吃肉|荤|戒糖|节食|饮食",
    "car": r"\b(?:car|drive an?|driving an?|EV|sedan|SUV)\b|车(?!站|票)|开(?:的是)?(?:一辆|辆)",
    "phone": r"\b(?:phone|iPhone|Pixel|Galaxy|Android)\b|手机",
    "school": r"\b(?:university|college|school|degree|major(?:ing)? in|PhD|master'?s|studying at|study at)\b"
              r"|大学|学校|专业|读研|读博|研究生|本科|高中|初中|小学",
}
_PATTERNS = {slot: re.compile(words, re.I) for slot, words in _SLOT_WORDS.items()}
# Another person's slot ("my sister moved to Porto", "我妹妹搬到了杭州"): not the user's.
_SOMEONE_ELSE = re.compile(
    r"\bmy (?:sister|brother|mum|mom|dad|mother|father|son|daughter|friend|colleague|cousin|aunt|uncle|neighbou?r"
    r"|parents|kids?|children|wife|husband|partner|girlfriend|boyfriend)\b(?!'s? (?:name|birthday))"
    r"|我(?:的)?(?:妹妹|姐姐|弟弟|哥哥|妈妈|爸爸|妈|爸|儿子|女儿|朋友|同事|表[哥姐弟妹]|堂[哥姐弟妹]|老婆|老公|对象|孩子)(?!叫|是)",
    re.I)


def slots_of(text: str) -> frozenset[str]:
    """The slots `text` speaks of (empty when it names none)."""
    return frozenset(slot for slot, pattern in _PATTERNS.items() if pattern.search(text))


def about_someone_else(text: str) -> bool:
    return bool(_SOMEONE_ELSE.search(text))


def may_replace(new: str, old: str) -> bool:
    """Whether a statement could be a new value for what a memory holds: not when both name slots and
    none is shared (a job against a home), nor when only one of the two is about someone else."""
    new_slots, old_slots = slots_of(new), slots_of(old)
    if new_slots and old_slots and not (new_slots & old_slots):
        return False
    return about_someone_else(new) == about_someone_else(old)
