"""The slot a statement about the user fills: where they live, where and as what they work, whom they
report to, their partner, pets, diet, car, phone, school. A new value for a slot replaces the old memory
of that slot; a statement can only replace a memory of the same slot (a new job never replaces a home).

Typed slot words in both languages, as a person reads them. A statement with no slot word is left to the
change model; so is one whose slots overlap the old memory's.
"""

from __future__ import annotations

import re
from functools import lru_cache

from memoryapp.lib.scripts import HAN_RANGES
from memoryapp.lib.values import values_in

from .change_features import old_covered, other_subject, says_a_change

RESTATED = 0.75  # share of the old memory's words the statement repeats: the same value, not a new one

_SLOT_WORDS: dict[str, str] = {
    "home": r"\b(?:live[sd]? in|living in|based in|mov(?:ed|ing|e) (?:to|back to|out of|into)|relocat\w* to"
    r"|my (?:flat|apartment|house|home|neighbou?rhood)|(?:flat|apartment|house) in|bought a (?:place|house|flat|home))\b"
    r"|住在|住的地方|搬(?:到|去|回|家|离|过去|过来)|定居|租(?:了|的)?房|买了?房|我家在|落户"
    rf"|在[{HAN_RANGES}]{{1,6}}(?:已经|一直|还)?住",  # 我在成都已经住了三年了
    "work": r"\b(?:work(?:ing|s)? (?:at|for|as|in)|job|employer|joined|hired|promoted|position|role at|quit|resigned"
    r"|transferred to|laid off|unemployed|engineer|developer|designer|nurse|teacher|doctor at|intern(?:ship)?)\b"
    r"|工作|上班|跳槽|入职|辞职|离职|职位|岗位|实习|调到|调去|升(?:职|了)?(?:店长|经理|主管|组长)|失业"
    r"|做(?:前端|后端|全栈|开发|设计|产品|运营|销售|测试|算法|研发|财务|会计|老师|医生|护士)"
    r"|当(?:老师|医生|护士|程序员|服务员|店长|会计)|转行|老师|教师|医生|护士|律师|会计|工程师|程序员|设计师|公务员",
    "manager": r"\b(?:(?<!product )(?<!project )manager|boss|supervisor|report(?:s|ing)? to|team lead)\b"
    r"|老板|领导|上司|(?<!产品|项目|客户)经理|主管|组长",
    "partner": r"\b(?:wife|husband|partner|girlfriend|boyfriend|fianc[ée]e?|married|divorced?|engaged|single|wedding"
    r"|broke up|split up|separated|seeing someone|dating)\b|老婆|老公|妻子|丈夫|女朋友|男朋友|对象|结婚|离婚|订婚|单身|分手|分开|在一起|异地恋",
    "pet": r"\b(?:dog|cat|puppy|kitten|pet|hamster|rabbit|parrot)s?\b|狗|猫|宠物|仓鼠|兔子|鹦鹉",
    "diet": r"\b(?:vegetarian|vegan|pescatarian|meat|keto|gluten|dairy|diet)\b|吃素|素食|吃肉|荤|戒糖|节食|饮食|生酮",
    "car": r"\b(?:car|drive an?|driving an?|EV|sedan|SUV|leas(?:e|ing) an?)\b|车(?!站|票)|开(?:的是)?(?:一辆|辆)",
    "phone": r"\b(?:phone|iPhone|Pixel|Galaxy|Android)\b|手机",
    "school": r"\b(?:university|uni|college|school|degree|major(?:ing)? in|PhD|master'?s|studying at|study at"
    r"|kindergarten|nursery|grade \d+|year \d+)\b"
    r"|大学|学校|专业|读研|读博|研究生|本科|高中|初中|小学|幼儿园|[一二三四五六]年级|休学|退学",
    "schedule": r"\b(?:shift|night shifts?|day shifts?|work(?:ing)? from home|remote(?:ly)?|hybrid|four-day week|9 to 5|office days?)\b"
    r"|白班|夜班|倒班|在家办公|居家办公|远程|坐班|早八晚五|朝九晚五|双休|单休",
    "doctor": r"\b(?:doctor|GP|dentist|physio|therapist|clinic|hospital)\b|医生|大夫|主任|主治|医院|诊所|挂(?:的是)?\S{0,3}号",
    # Many at a time: replaced only when the statement says it changed ("switched", "instead", 改用, 换成).
    "tool": r"\b(?:notes?|browser|maps?|navigation|editor|IDE|mock-?ups?|design tool|video editing|password manager)\b"
    r"|笔记|浏览器|导航|地图|编辑器|剪视频|剪辑|设计稿",
    "exercise": r"\b(?:gym|trainer|coach|yoga|pilates|running|runs?|cycling|swim(?:ming)?|climbing|football|work(?:s|ing)? out)\b"
    r"|健身|私教|教练|瑜伽|跑步|骑行|游泳|攀岩|踢球",
    "drink": r"\b(?:coffee|tea|matcha|espresso|latte|beer|wine)\b|咖啡|茶|奶茶|啤酒|红酒",
    "hobby": r"\b(?:guitar|piano|violin|pottery|painting|knitting|mahjong|chess|bridge)\b|吉他|钢琴|尤克里里|小提琴|画画|麻将|象棋|围棋",
}
_PATTERNS = {slot: re.compile(words, re.I) for slot, words in _SLOT_WORDS.items()}
# Slots with one value at a time: a new one replaces the old (a second pet or tool is an addition).
SINGLE_VALUED = frozenset({"home", "work", "manager", "partner", "car", "phone", "school", "schedule"})
# Slots whose memory opens on the other one ("My wife is Anna", "领导是王姐", "我养的鹦鹉叫小绿") and whose
# news does too ("Anna and I separated", "Sarah走了", "小绿飞走了"): still the user's slot.
_ABOUT_ANOTHER = frozenset({"manager", "partner", "pet"})
# Slots with several values: a statement replaces one of them only when it says it changed.
_SWITCHED = re.compile(
    r"\b(?:switched|swapped|instead|moved over to|replaced|gave up|quit|stopped|no longer|not any ?more"
    r"|convert|anymore|now)\b|改用|换成|改成|改为|改学|改到|改骑|改喝|换了|不用了|不再|放弃|停止|戒了|现在",
    re.I,
)
# The user speaks of themselves: in the first person, or with no subject at all ("moved to Denver",
# "Leasing a Volvo now", "搬到佛山之后…", "最近改骑电动车"); not of a thing ("马自达出了新款 SUV").
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|me|my|mine|we|we're|we've|our|us)\b|我|俺|咱", re.I)
_NO_SUBJECT_EN = re.compile(
    r"^\W*(?:just |finally |now |recently |also )?(?:[a-z]+(?:ed|ing)|got|went|left|sold|bought|quit"
    r"|joined|switched|swapped|finished|started|took|began|now|these days|since)\b",
    re.I,
)
_NO_SUBJECT_ZH = frozenset("v d t f p c".split())  # jieba: verb, adverb, time, place-time, preposition, conjunction
# Someone or something else's news, though the user tells it: a relative, a named person, a workplace
# ("我姐搬到成都了", "志强跳槽去了…", "我们部门搬到新园区了", "Our office moved…", "给我妈买了台手机", "刘姐的上级换人了").
_THEIRS = re.compile(
    r"^\W*(?:so |and |btw )?(?:she|he|they|his|her|their)\b"
    r"|^\W*(?:我|俺)?(?:的)?(?:表|堂)?(?:同学|姐|哥|弟|妹|爸|妈|老公|老婆|媳妇|儿子|女儿|闺女|对象|朋友|同事|室友|邻居|家里人)"
    r"|^\W*给(?:我)?\S{1,3}买"
    rf"|^\W*(?![我俺咱]|新来|新的|现在)[{HAN_RANGES}]{{1,3}}的(?:上级|领导|老板|公司|工作|家|车|手机)",
    re.I,
)
# An end said of the old value itself ("Marco and I broke up", "思域卖了", "从谷歌离职了").
_ENDED = re.compile(
    r"\b(?:broke up|split up|divorced|separated|sold|quit|left|moved out|gave up|stopped|no longer|not any ?more"
    r"|passed away|died|retired|transferred)\b|分手|分开|离婚|离了|卖了|离职|辞职|退了|退休|走了|调去|调走|搬走|不再"
    r"|不(?:吃|喝|用|开|住)了|戒了|飞走",
    re.I,
)
# A relationship that turned ("got engaged", "结婚了"): a new value of the partner slot with the same person.
_TURNED = re.compile(r"\b(?:married|engaged|wedding|moved in)\b|结婚|订婚|领证|求婚", re.I)
_PARTNER_WORDS = re.compile(r"girlfriend|boyfriend|女朋友|男朋友", re.I)
# A relative or a friend, not the partner, whose news it is ("my brother and his girlfriend split up", "我表弟离婚了").
_RELATIVE = re.compile(
    r"\b(?:brother|sister|cousin|friend|colleague|mum|mom|dad|son|daughter|neighbou?r|roommate)s?\b"
    r"|同学|朋友|同事|表|堂|哥|姐|弟|妹|爸|妈|儿子|女儿|闺女|室友|邻居",
    re.I,
)
# An addition: "also", "another", 也, 另外, 还/又 with getting one more ("还养了", "又买了"); not 还 as "still".
_ADDS = re.compile(
    r"\b(?:also|too|as well|another|in addition)\b|也|另外|(?:还|又)(?:养|买|有|学|用|开|报|加|添)", re.I
)
# A workplace or a building opens it ("我们部门搬到新园区了", "Our office moved…"), and the user does not go
# on to say what it changed for them ("公司搬了，我改开车上班" is the user's change).
_WORKPLACE = re.compile(
    r"^\W*(?:(?:my|our) (?:\w+ )?(?:office|company|team|department|lab|school|building|landlord)\b"
    r"|(?:我们|咱们)?(?:部门|办公室|公司|团队|组里|单位|学校|房东))",
    re.I,
)
_THEN_I = re.compile(r"[，,;；]\s*(?:我|I\b|I'|we\b|我们)", re.I)
# A person called by a nickname opens it: 小周, 老马, 阿杰 (jieba cannot tell these names).
_PERSON_NEWS = re.compile(r"(?:也|又|刚|已经)?(?:离职|辞职|退|走|搬|跳槽|换|调|升|结婚|分手|离婚|去了|入职)")
_NICKNAME = re.compile(rf"^\W*(?:小|老|阿)[{HAN_RANGES}]{{1,2}}?(?=离职|辞职|退|走|搬|跳槽|换|调|升|结婚|分手)")
# A new one named: "new", 新, "now … is" ("My new manager", "新来的领导", "新买的鹦鹉").
_NEW_ONE = re.compile(r"\bnew\b|新", re.I)
# A second one beside the first ("two phones", "a side gig", "兼职"): not a new value.
_SECOND = re.compile(
    r"\b(?:two|second|side|extra|spare|on the side|backup)\b|兼职|副业|另一|第二|两(?:个|台|辆|部)", re.I
)
# A plan, a wish or a maybe is not yet a new value ("thinking about switching to Android", "打算换车").
_NOT_YET = re.compile(
    r"\b(?:thinking (?:about|of)|considering|might|maybe|perhaps|plan(?:ning)? to|want to|would like"
    r"|hoping to|if I|should I|going to|someday|one day|preparing for|applying)\b"
    r"|打算|考虑|可能|想(?:要|换|搬|去|买|学|考|以后)|以后|将来|计划|如果|要不要|准备|备考",
    re.I,
)


def slots_of(text: str) -> frozenset[str]:
    """The slots `text` speaks of (empty when it names none)."""
    return frozenset(slot for slot, pattern in _PATTERNS.items() if pattern.search(text))


def may_replace(new: str, old: str) -> bool:
    """Whether a statement could be a new value for what a memory holds: not when both name slots and
    none is shared (a job against a home), nor when only one of the two is about someone else."""
    new_slots, old_slots = slots_of(new), slots_of(old)
    if new_slots and old_slots and not (new_slots & old_slots):
        return False
    if not new_slots & old_slots or new_slots & old_slots & _ABOUT_ANOTHER:
        return True  # no slot to go by (the change model decides), or one whose news opens on the other
    return theirs(new) == theirs(old)


def new_value(new: str, old: str) -> bool:
    """The statement gives a slot of the user's memory a new value: the same slot (one of several, like a
    tool or a sport, only when it says it switched), the user's own (or their manager), not an addition,
    not a second one, not a plan or a maybe, and not the same value said again."""
    shared = slots_of(new) & slots_of(old)
    if shared and not shared & SINGLE_VALUED and not _SWITCHED.search(new):
        return False  # a second tool, sport or pet, unless it replaced the first
    if not shared or _ADDS.search(new) or _SECOND.search(new) or _NOT_YET.search(new):
        return False
    if theirs(new) and not shared & _ABOUT_ANOTHER:  # "Sarah走了，新老板是…": the user's manager all the same
        return False
    if shared <= _ABOUT_ANOTHER:
        if _RELATIVE.search(_PARTNER_WORDS.sub("", re.split(r"[，,;；]", new)[0])):
            return False  # a relative's, a friend's or a colleague's news
        if not (
            _NEW_ONE.search(new)
            or _ENDED.search(new)
            or _TURNED.search(new)
            or set(values_in(new)) - set(values_in(old))
        ):
            return False  # news of the partner or the pet ("my wife drinks decaf"), not a new one
    if restated(new, old):
        return False
    return about_the_user(new) and may_replace(new, old)


def restated(new: str, old: str) -> bool:
    """The statement says the old memory's value again, with no word of a change: most of its words, or every
    name and number of it ("Since I'm based in Lisbon" beside "Lives in Lisbon"; not "left Shopify in May")."""
    if _ENDED.search(new):
        return False
    old_names = values_in(old)
    if old_names and all(name.casefold() in new.casefold() for name in old_names):
        # No other name, or no word of a change ("My flat in Berlin is close to the Spree" beside "Lives in
        # Berlin"): the same value, told more of.
        return not (set(values_in(new)) - set(old_names))
    return not says_a_change(new) and old_covered(new, old) >= RESTATED


def theirs(text: str) -> bool:
    """Someone else's news: a relative, a workplace, a thing or a named person opens it ("志强跳槽去了…",
    "小周离职了", "my sister moved…")."""
    if other_subject(text) or _THEIRS.search(text):
        return True
    if _WORKPLACE.search(text):
        return not _THEN_I.search(text)
    if _NICKNAME.search(text):
        return True
    first = _first_word(text)  # a person's name (jieba), doing what people do: "志强跳槽去了…"
    return (
        first is not None
        and first.flag.startswith("nr")
        and len(first.word) >= 2
        and bool(_PERSON_NEWS.match(text.strip()[len(first.word) :]))
    )


@lru_cache(maxsize=1024)  # asked of one statement for each neighbour, by `theirs` and `about_the_user`
def _first_word(text: str):
    import jieba.posseg  # loaded with the text vocabulary already (engine/text.py)

    return next((w for w in jieba.posseg.cut(text.strip()) if w.word.strip()), None)


def about_the_user(text: str) -> bool:
    if _FIRST_PERSON.search(text) or _NO_SUBJECT_EN.search(text):
        return True
    first = _first_word(text)
    return first is not None and first.flag[:1] in _NO_SUBJECT_ZH
