"""The Chinese words around a name that tell its type: suffixes of organisations (…大学, …银行) and
districts (…区), relation words before a person (我妹妹李娜), titles after one (李医生), and the verbs
around an English name inside Chinese (在 Google 做, 用 Notion). Hand-written; tuned on dev only."""

from __future__ import annotations

import re

from .entity import EntityType

ORG_SUFFIXES = (
    "大学",
    "学院",
    "医学院",
    "医院",
    "银行",
    "公司",
    "集团",
    "科技",
    "汽车",
    "保险",
    "证券",
    "小学",
    "中学",
    "高中",
    "幼儿园",
    "研究院",
    "研究所",
    "科学院",
    "电网",
    "快递",
    "实验室",
    "工作室",
    "事务所",
    "律所",
    "基金",
    "资本",
    "传媒",
    "物流",
    "航空",
    "中心",
    "协会",
    "俱乐部",
    "出版社",
    "电视台",
    "报社",
)
# A word that ends in one of these is an organisation only with a name before it ("星展银行", not "银行").
DISTRICT_SUFFIXES = ("区", "县", "镇", "新区")
RELATIONS = (
    "妹妹",
    "弟弟",
    "哥哥",
    "姐姐",
    "哥",
    "姐",
    "弟",
    "妹",
    "老公",
    "老婆",
    "丈夫",
    "妻子",
    "爱人",
    "儿子",
    "女儿",
    "朋友",
    "闺蜜",
    "同事",
    "同学",
    "室友",
    "导师",
    "师傅",
    "师父",
    "老板",
    "经理",
    "组长",
    "领导",
    "老师",
    "班主任",
    "教练",
    "医生",
    "表姐",
    "表哥",
    "表妹",
    "表弟",
    "堂弟",
    "堂妹",
    "堂哥",
    "堂姐",
    "侄子",
    "侄女",
    "外甥",
    "外甥女",
    "舅舅",
    "叔叔",
    "阿姨",
    "姑姑",
    "爷爷",
    "奶奶",
    "外公",
    "外婆",
    "爸",
    "妈",
    "爸爸",
    "妈妈",
    "男朋友",
    "女朋友",
    "未婚妻",
    "未婚夫",
    "孙子",
    "孙女",
    "对象",
    "和",
    "跟",
    "叫",
    "老大",
    "叫做",
    "名叫",
    "mentor",
    "manager",
    "colleague",
    "friend",
    "husband",
    "wife",
    "sister",
    "brother",
)
TITLES = ("医生", "大夫", "老师", "教授", "先生", "女士", "总", "经理", "主任", "师傅")
PROJECT_NOUNS = ("项目", "计划", "工程", "迁移", "重构", "平台", "系统", "小程序")
GENERIC_BEFORE_PROJECT = frozenset(
    "数据 公司 团队 这个 那个 重点 科研 开源 个人 研究 试点 合作 创业 装修 减肥 学习 健身 "
    "旅行 存钱 攒钱 新 老 大 小 整个 一个 支付 推荐 风控 搜索 前端 后端 测试 自己 我们 "
    "他们 国家 毕业 课题 年度 本 该".split()
)
# Before / after an English name in Chinese: what it is.
_ORG_BEFORE = re.compile(r"(?:在|于|去了|加入了?|跳槽到了?|跳到了?)\s*$")
_ORG_AFTER = re.compile(r"^\s*(?:做|上班|工作|实习|当|任职|读|的?\S{0,2}办公室|面试)")
_PRODUCT_BEFORE = re.compile(r"(?:用|使用|在用|用的是|买了一?台?|装了|玩|看|听|开|是|戒了|卸载了|上的)\s*$")
_PRODUCT_AFTER = re.compile(r"^\s*(?:上|里|订|买|看|写|听|管|跑|做|记|学)")
_PERSON_BEFORE = re.compile(r"(?:和|跟|老板|同事|朋友|老大|叫|儿子|女儿|老公|老婆|mentor|manager|my \w+)\s*$")
_PLACE_BEFORE = re.compile(r"(?:去|到|来|住在|回|飞|搬到|base 在|在)\s*$")
_PLACE_AFTER = re.compile(r"^\s*(?:见|出差|旅游|玩|上学|读书|生活|定居|的)")


# A place is said before these in Chinese (and "X人": where someone is from).
PLACE_VERBS = ("去", "到", "在", "住在", "住", "回", "飞", "来自", "老家", "老家在", "搬到", "搬到了", "去了", "定居")
NOT_NAMES = frozenset("老公 老婆 老板 老师 老家 老大 小孩 小学 阿姨 孙子 孙女 高中 高考 中考 同学 同事 程序员".split())
_PROJECT_AFTER = re.compile(r"^\s*(?:{})".format("|".join(PROJECT_NOUNS)))


def type_of_latin_in_chinese(before: str, after: str) -> EntityType | None:
    """The type the Chinese around an English name gives it, or None when it says nothing."""
    if _PROJECT_AFTER.search(after):
        return EntityType.PROJECT
    if _PERSON_BEFORE.search(before):
        return EntityType.PERSON
    if _PRODUCT_BEFORE.search(before):
        return EntityType.PRODUCT
    if _ORG_BEFORE.search(before) and _ORG_AFTER.search(after):
        return EntityType.ORGANIZATION
    if _PLACE_BEFORE.search(before) and _PLACE_AFTER.search(after):
        return EntityType.PLACE
    if re.search(r"在\s*$", before) and _PRODUCT_AFTER.search(after):
        return EntityType.PRODUCT
    return None
