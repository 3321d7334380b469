"""Text that must never become a memory: the user's secrets, in English, Chinese or both.

`find_secret` names what a text holds (a PIN, a password, an ID, passport, account or card number, an
API key, a security answer, a one-time code) or None. A secret is a value: a credential named in words
with nothing after it ("I forgot my password again", "the printer's PIN is on the wall", "I keep
everything in 1Password") is an ordinary sentence; one followed by something usable ("my bank PIN is
4821", "支付密码是870412", "the code for my phone is one three seven nine") is not. Numbers that identify
or pay (card, 身份证, IBAN, SSN) are secrets by their shape alone, unless the sentence says they are an
order, a parcel or a flight.

Rules, not a trained model: they measured better on the written cases (bench/secret_cases, `python -m
bench.secrets`), and a reader can see why a sentence was refused. The write path refuses what this
flags (engine/memories/validation.py); extraction drops it before that.
"""

from __future__ import annotations

import re
from enum import StrEnum

from memoryapp.lib.scripts import HAN_RANGES


class SecretKind(StrEnum):
    PASSWORD = "password"
    PIN = "pin"
    ID_NUMBER = "id_number"
    PASSPORT = "passport"
    BANK_ACCOUNT = "bank_account"
    CARD = "card"
    API_KEY = "api_key"
    SECURITY_ANSWER = "security_answer"
    OTP = "otp"
    OTHER = "other"


# Digits are matched with look-arounds, not \b: in Python's Unicode regexes a CJK character counts as a
# word character, so "号是110101..." has no \b before the digits.
_NUM_WORD = r"(?:zero|oh|one|two|three|four|five|six|seven|eight|nine)"
_VALUE_DIGITS = (
    r"(?<![A-Za-z0-9_.])\d(?:[ \-]?\d){2,24}(?![\d.,]\d)"  # 482, 4821, 12-34-56, 448 201
    rf"|\b{_NUM_WORD}(?:[\s,-]{{1,3}}{_NUM_WORD}){{2,12}}\b"  # four eight two one
    r"|[零〇一二三四五六七八九幺两]{3,24}|[一二三四五六七八九]个[零〇一二三四五六七八九]"
)  # 幺三五七, 六个八
_UNIT_AFTER = (
    r"(?!\s*(?:位|个字符|characters?|digits?|chars?|times|次|天|days?|months?|years?|%|元|块|dollars?|[.,]\d))"
)
# A value with a digit or a symbol in it, or quoted: hunter2, Tr0ub4dor&3, "mangoTango!", 'Kiwi-Fruit-88'.
_VALUE_TOKEN = (
    r"[\"'“‘「](?=[^\"'”’」\s])[^\"'”’」\n]{3,64}[\"'”’」]"
    r"|(?<![A-Za-z0-9_@.])(?=[^\s，。；,;]{0,64}\d)(?=[^\s，。；,;]{0,64}[A-Za-z!@#$%^&*_~+=])"
    r"[A-Za-z0-9!@#$%^&*_~+=.\-/]{4,64}"
    r"|(?<![A-Za-z0-9_@.])(?=[A-Za-z0-9]{0,64}[a-z])(?=[A-Za-z0-9]{0,64}[A-Z])(?=[A-Za-z0-9]{0,64}\d)[A-Za-z0-9]{6,64}"
)
# After "is" / "是": one plain word can be the password itself ("the wifi password is sunshine"); these
# words say something about it instead ("my password is too weak", "the PIN is on the wall").
_NOT_A_VALUE = set(
    """
a an the my your his her our their its this that these those it there here what which whatever something
anything nothing everything same different on in at under behind inside near next by with for from of to
into onto off over up down about as like and or but not never no always still also just really very so too
quite pretty super kind sort way much more less most least only even usually often sometimes written
stored saved kept taped stuck posted printed hidden somewhere everywhere weak strong long short simple easy
hard difficult complicated complex wrong right correct incorrect invalid valid expired old new changed
reset required needed necessary mandatory optional secure insecure safe unsafe compromised leaked hacked
forgotten lost locked blocked shared public private encrypted hashed case sensitive random unique generated
managed impossible annoying terrible fine ok okay good bad great awful useless pointless stupid obvious
predictable guessable important ridiculous silly long-ish sent texted emailed coming arriving late slow
supposed meant going about being getting due set changing because since if when while where who how why
""".split()
)
_VALUE_WORD = (
    r"(?<![A-Za-z0-9_@.])[A-Za-z][A-Za-z'-]{2,30}"  # the word ends its clause: "… is sunshine."
    r"(?=\s*(?:$|[.,;!?)，。；！？]|\s+(?:btw|lol|haha|ok|okay|please|thanks|now|again)\b))"
)
_VALUE = rf"(?:{_VALUE_TOKEN}|(?:{_VALUE_DIGITS}){_UNIT_AFTER})"

# How a credential is tied to its value: "is", ":", "=", "是", "设成了"…; a bare space only before digits
# or a token ("PIN 4821", "password hello1234").
_LINK_EN = (
    r"(?:'s|’s|(?:\s+(?:right\s+now|now|currently|today))?\s+(?:is|was|are|=|reads|becomes|became)"
    r"(?:\s+(?:now|still|just|always|actually))?|\s*[:=：]|\s+(?:to|as)|\s+(?:is|was)\s+set\s+to|\s+says"
    r"|\s*\?\s*it(?:'s|’s|\s+is))"
)
_LINK_ZH = r"(?:\s*(?:是|为|:|：|=|改成了?|改为|换成了?|设成了?|设置成了?|设为|设置为|设的是|填的是|就是|一直是|现在是|还是|都是|也是)\s*)"
_LINK = rf"(?:{_LINK_EN}|{_LINK_ZH})\s*"
_LINK_OR_SPACE = rf"(?:{_LINK}|\s*)"

# Between the credential and its link: who gave it ("the code the bank sent me is"), what it belongs to
# ("PIN for my bank card is", "password to the work laptop:", "密码我改成了"), an aside (", for the bank question,").
_BETWEEN_EN = (
    r"(?:\s+(?:(?:that|which)\s+)?(?:(?:the|my|our)\s+)?\w+\s+(?:sent|texted|emailed|gave|told)(?:\s+(?:me|us))?)?"
    r"(?:\s+(?:for|to|of|on|at|from|in)\s+(?:(?:my|the|our|his|her|their|this|that|a|an)\s+)?"
    r"[\w'’.-]+(?:\s+[\w'’.-]+){0,4}?)?(?:\s*,[^,.;\n]{1,40},)?"
)
_BETWEEN_ZH = (
    rf"(?:\s*(?!余额|额度|限额|利率|利息|长度|位数)[{HAN_RANGES}]{{1,3}}?|\s+(?:number|no\.?|code|password|pin)\b)?"
)

_PASSWORD_CUE = (
    r"pass\s*words?|passwd|passphrase|pass\s*code|\bpwd\b|\bpw\b|\bpass\b|\blogin\b|\bpassword"
    r"|解压密码|登录密码|支付密码|开机密码|锁屏密码|解锁密码|取款密码|交易密码|管理员密码|密码|口令"
)
_PASSWORD_WORD = r"pass\s*words?|passwd|pass\s*code|\bpwd\b|\bpw\b|密码|口令"  # not "pass", "login": verbs too
_PIN_CUE = (
    r"(?<!\bI )(?<!\bwe )(?<!\byou )(?<!\bthey )\bpins?\b(?:\s*(?:code|number|no\.?))?|pin码|"
    r"\b(?:door|gate|alarm|keypad|entry|building|garage|lock\s*screen|unlock|locker|phone|ipad|safe)\s+code"
    r"|code\s+(?:for|to)\s+(?:(?:my|the|our)\s+)?(?:\w+\s+){0,2}?(?:phone|door|flat|house|gate|garage|alarm|"
    r"ipad|tablet|laptop|safe|locker|building|office|apartment|car|bike|lock)\b|\b(?:unlocks?|opens?)\s+with"
    r"|门禁码|门锁码|开锁码"
)
_OTP_CUE = (
    r"\b(?:verification|confirmation|security|login|sign-?in|one[\s-]time|2fa|two[\s-]factor|mfa|sms|auth)\s+"
    r"(?:code|pass\s*code|password|pin)s?|\botp\b|\bbackup\s+codes?|\b(?:\d|four|six|eight)[\s-]digit\s+code"
    r"|\bcode(?=\s+(?:(?:that|which)\s+)?(?:(?:the|my|our)\s+)?\w+\s+(?:sent|texted|emailed))"  # "the code X sent"
    r"|\bcode\s+from\s+(?:the\s+)?\w+|验证码|动态码|校验码|动态口令"
)
_ID_CUE = (
    r"social\s+security(?:\s+number)?|\bssn\b|\bsocial\b|national\s+(?:id|insurance)(?:\s+number)?|\bni\s+number|"
    r"tax\s+id|\bid\s+(?:card\s+)?(?:number|no\.?)|driv(?:er'?s|ing)\s+licen[cs]e(?:\s+number)?|licen[cs]e\s+number|"
    r"aadhaar|身份证(?:号码?)?|社保卡号|驾驶证(?:档案)?(?:号|编号)|驾照号|证件号码?|\bid\s*card\s*号码?"
)
_PASSPORT_CUE = r"passport(?:\s+(?:number|no\.?|#))?|护照(?:号码?)?|通行证号码?|the\s+number\s+on\s+my\s+passport"
_ACCOUNT_CUE = (
    r"(?:bank\s+|checking\s+|savings\s+|salary\s+)?account\s*(?:number|no\.?|#)?|\bacct\b(?:\s*no\.?)?|"
    r"routing(?:\s+number)?|sort\s+code|\biban\b|银行卡号|银行账号|卡号|账号|账户|收款账户|开户账号"
)
_CARD_CUE = (
    r"(?:credit|debit)\s+card(?:\s+number)?|card\s+number|\bcard\b|\bvisa\b|mastercard|\bamex\b|信用卡号?|借记卡号?|"
    r"银行卡"
)
_CVV_CUE = (
    r"\bcvv2?\b|\bcvc\b|back\s+of\s+(?:my|the)\s+card|security\s+code\s+on\s+the\s+back(?:\s+of\s+my\s+card)?"
    r"|安全码|背面的?(?:三|3)位数?|背后三位数?"
)
_KEY_CUE = (
    r"api[\s_-]*keys?|secret(?:\s+access)?[\s_-]*keys?|access[\s_-]*(?:key|token)(?:\s*(?:id|secret))?|"
    r"client[\s_-]*secret|\btokens?\b|bearer|private[\s_-]*key|\bkey\b|密钥|秘钥|令牌|accesskey(?:\s*(?:id|secret))?"
)
_SECURITY_CUE = (
    r"security\s+(?:question|answer)s?|secret\s+question|memorable\s+word|maiden\s+name|"
    r"密保(?:问题)?|安全问题"
)
_COMBINATION_CUE = r"combination|combo|密码锁"
_PASSPHRASE_CUE = r"pass\s*phrase"
_KEY_WORD_CUE = r"api[\s_-]*key|secret[\s_-]*key|access[\s_-]*token|client[\s_-]*secret|\btoken"
_ANSWER_CUE = _SECURITY_CUE + r"|(?:the\s+)?answer"
_ASKED_CUE = r"\b(?:bank|security|account|site|app)\s+asked\b"

_I = re.IGNORECASE


def _named(cue: str, value: str = _VALUE, link: str = _LINK_OR_SPACE) -> re.Pattern[str]:
    return re.compile(rf"(?:{cue})(?:{_BETWEEN_EN}|{_BETWEEN_ZH})(?:{link})(?:{value})", _I)


def _luhn(digits: str) -> bool:
    total = 0
    for position, char in enumerate(reversed(digits)):
        n = int(char) * (2 if position % 2 else 1)
        total += n - 9 if n > 9 else n
    return total % 10 == 0


_LONG_DIGITS = r"(?<![\w.+])\d(?:[ \-]?\d){5,22}(?![\d])"

# Shape alone: credentials and numbers that mean one thing wherever they stand.
_SHAPES: tuple[tuple[SecretKind, re.Pattern[str]], ...] = (
    (
        SecretKind.API_KEY,
        re.compile(
            r"\bsk-(?:proj-|ant-[\w-]*?)?[A-Za-z0-9_-]{16,}|\bsk_(?:live|test)_[A-Za-z0-9]{16,}|\bgh[pousr]_[A-Za-z0-9]{20,}"
            r"|\bgithub_pat_\w{20,}|\bglpat-[\w-]{16,}|\bAKIA[0-9A-Z]{16}\b|\bxox[abprs]-[A-Za-z0-9-]{10,}|\bAIza[\w-]{30,}"
            r"|\bLTAI[A-Za-z0-9]{12,}|\beyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]{6,}|-----BEGIN [A-Z ]*PRIVATE KEY-----"
        ),
    ),
    # 18-character PRC resident ID: region, a birth date, sequence, check digit (X allowed).
    (
        SecretKind.ID_NUMBER,
        re.compile(
            r"(?<![\dA-Za-z])\d{6}(?:19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[\dXx](?![\dA-Za-z])"
        ),
    ),
    (SecretKind.ID_NUMBER, re.compile(r"(?<![\d-])\d{3}-\d{2}-\d{4}(?![\d-])")),  # US SSN
    # Card numbers written in groups: 4-4-4-4 (and up to 19 digits), Amex 4-6-5.
    (
        SecretKind.CARD,
        re.compile(
            r"(?<![\d-])\d{4}([ -])\d{4}\1\d{4}\1\d{4}(?:\1\d{1,3})?(?![\d-])"
            r"|(?<![\d-])3[47]\d{2} \d{6} \d{5}(?![\d-])"
        ),
    ),
)
_IBAN = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?:\s?[A-Z0-9]{4}){2,7}(?:\s?[A-Z0-9]{1,4})?(?![A-Za-z0-9])")


def _iban(candidate: str) -> bool:
    """An IBAN's own check (ISO 13616, mod 97), so a parcel's "YT75 1234 5678 901" is not one."""
    compact = candidate.replace(" ", "")
    rearranged = compact[4:] + compact[:4]
    return int("".join(str(int(char, 36)) for char in rearranged)) % 97 == 1


# A long run of digits is a card or an account unless the sentence says what else it is.
_NOT_SECRET_NUMBER = re.compile(
    r"order|tracking|parcel|package|shipment|invoice|receipt|reference|booking|reservation|flight|serial|model|"
    r"isbn|phone|mobile|call|tel\b|ticket|订单|单号|运单|快递|物流|发票|航班|型号|序列号|手机|电话|预订|票号|工号|学号",
    _I,
)

# Named: a credential and its value.
_NAMED: tuple[tuple[SecretKind, re.Pattern[str]], ...] = (
    (SecretKind.CARD, _named(_CVV_CUE, r"\d{3,4}(?!\d)")),
    (
        SecretKind.ID_NUMBER,
        _named(
            _ID_CUE,
            r"[A-Z]{0,2}[ ]?\d(?:[ \-]?[\dA-Z]){5,24}"
            r"|[A-Z]{5}\d{6}[A-Z0-9]{5}",
        ),
    ),  # UK driving licence
    (SecretKind.PASSPORT, _named(_PASSPORT_CUE, r"(?:[A-Z]{1,2}[ ]?)?\d{6,9}(?!\d)|[A-Z0-9]{9}(?=\W|$)")),
    (SecretKind.CARD, _named(_CARD_CUE, r"\d(?:[ \-]?\d){11,18}(?!\d)")),
    (
        SecretKind.BANK_ACCOUNT,
        _named(_ACCOUNT_CUE, rf"\d(?:[ \-]?\d){{5,30}}(?!\d){_UNIT_AFTER}|[A-Z]{{2}}\d{{2}}[A-Z0-9 ]{{10,40}}"),
    ),
    (SecretKind.API_KEY, _named(_KEY_CUE, r"[A-Za-z0-9_\-/+=.]{16,200}(?=[\s,;，。]|$)")),
    (SecretKind.OTP, _named(_OTP_CUE, rf"(?:{_VALUE_DIGITS}){_UNIT_AFTER}")),
    (SecretKind.PIN, _named(_PIN_CUE, _VALUE)),
    (SecretKind.PASSWORD, _named(_PASSWORD_CUE, _VALUE)),
    (SecretKind.OTHER, _named(_COMBINATION_CUE, rf"(?:{_VALUE_DIGITS}){_UNIT_AFTER}")),
)
# Looser: a credential, then within its sentence a colon or "=" and a value ("my amazon password's the same as
# my email one: Dolphin2021", "instagram login: maya_k / sunset#2019"), or a value that only a password looks like.
_LOOSE = tuple(
    (kind, re.compile(rf"(?:{cue})[^.。!?！？\n]{{0,40}}?[:：=][^.。!?！？\n]{{0,20}}?(?:{_VALUE})", _I))
    for kind, cue in ((SecretKind.OTP, _OTP_CUE), (SecretKind.PIN, _PIN_CUE), (SecretKind.PASSWORD, _PASSWORD_CUE))
) + (
    (
        SecretKind.PASSWORD,
        re.compile(
            rf"(?:{_PASSWORD_WORD})[^.。!?！？\n]{{0,60}}?(?<![A-Za-z0-9_@.])(?!1password|2fa\b|[a-z]+\d+\.)(?:{_VALUE_TOKEN})",
            _I,
        ),
    ),
)
# After an explicit link, one plain word can be the whole password or answer.
_WORD_AFTER_LINK: tuple[tuple[SecretKind, re.Pattern[str]], ...] = (
    (SecretKind.PASSWORD, _named(_PASSWORD_CUE, rf"(?P<word>{_VALUE_WORD})", _LINK)),
    (SecretKind.PASSWORD, _named(_PASSPHRASE_CUE, r"(?P<word>[A-Za-z][\w'-]*)", _LINK)),  # several words
    (SecretKind.API_KEY, _named(_KEY_WORD_CUE, rf"(?P<word>{_VALUE_WORD})", _LINK)),
    (SecretKind.SECURITY_ANSWER, _named(_ANSWER_CUE, rf"(?P<word>{_VALUE_WORD})", _LINK)),
)
# A security answer: a security question named, then what was answered ("…the answer is 旺财", "I put Oakwood").
_SECURITY = re.compile(
    rf"(?:{_SECURITY_CUE}).{{0,40}}?(?:answer(?:\s+is)?|I\s+(?:put|said|wrote|used|chose)|was\s+called|was|is"
    rf"|答案(?:是|为|填的是)?|填的是|写的是|[:：])\s*[^\s,.;，。；?？]{{2,}}",
    _I,
)
_ASKED = re.compile(
    rf"{_ASKED_CUE}[^.。!?！？\n]{{0,40}}?"
    r"\bI\s+(?:answered|said|put|wrote)\s+\S+",
    _I,
)  # "the bank asked my favourite teacher and I said …"
_SECURITY_NOT = re.compile(
    r"answers?\s+(?:is|are)\s+(?:so\s+|too\s+)?(?:easy|hard)|记不住|忘了|hate|never remember|"
    r"can't remember|was on the form|太难",
    _I,
)
# The value first: "4821 is my PIN", "qwerty123 for my password", "771204 as the login code", "870412是我的支付密码".
_REVERSED = re.compile(
    rf"(?:{_VALUE_DIGITS}|{_VALUE_TOKEN})\s*"
    rf"(?:(?:is|as|for)\s+(?:my|the|our)(?:\s+\w+){{0,3}}?\s+|是我的?\S{{0,6}}?)"
    rf"(?:{_PIN_CUE}|{_PASSWORD_CUE}|{_OTP_CUE}|{_CARD_CUE}|{_PASSPORT_CUE})"
    r"(?!\s*(?:managers?|hints?|resets?|polic(?:y|ies)|generators?|vaults?|apps?|管理))",
    _I,
)


def _plain_word_is_value(match: re.Match[str]) -> bool:
    word = match.group("word").lower().strip("'-")
    return word not in _NOT_A_VALUE and not word.endswith(("ing", "ed")) and not re.fullmatch(_NUM_WORD, word)


# Every pattern that ties a credential to its value needs one of these cues to match: _named and _LOOSE
# start with one, _WORD_AFTER_LINK, _SECURITY and _ASKED too, _REVERSED ends with one. A text with none of
# them can hold a secret by its shape only (a key, an ID, a card, an IBAN), and most texts have none: one
# pass over it spares them the two dozen patterns (the answer is the same; tests/unit/engine/test_sensitive.py).
_CUE_PATTERN = "|".join(
    f"(?:{cue})"
    for cue in (
        _CVV_CUE,
        _ID_CUE,
        _PASSPORT_CUE,
        _CARD_CUE,
        _ACCOUNT_CUE,
        _KEY_CUE,
        _OTP_CUE,
        _PIN_CUE,
        _PASSWORD_CUE,
        _COMBINATION_CUE,
        _PASSWORD_WORD,
        _PASSPHRASE_CUE,
        _KEY_WORD_CUE,
        _ANSWER_CUE,
        _SECURITY_CUE,
        _ASKED_CUE,
    )
)
_CUES = re.compile(_CUE_PATTERN, _I)


def _names_a_credential(text: str) -> bool:
    return _CUES.search(text) is not None


_LONG_DIGITS_RE = re.compile(_LONG_DIGITS)


def find_secret(text: str) -> SecretKind | None:
    """What secret `text` holds, or None when it holds none (see the module's docstring)."""
    return _secret_in(text, cued=_names_a_credential(text))


def _secret_in(text: str, *, cued: bool) -> SecretKind | None:
    """find_secret's rules in their order; `cued` False skips those that need a cue (_CUES) to match."""
    if any(_iban(match.group()) for match in _IBAN.finditer(text)):
        return SecretKind.BANK_ACCOUNT
    for kind, pattern in _SHAPES:
        if pattern.search(text):
            return kind
    if cued:
        for kind, pattern in (*_NAMED, *_LOOSE):
            if pattern.search(text):
                return kind
        for kind, pattern in _WORD_AFTER_LINK:
            if any(_plain_word_is_value(m) for m in pattern.finditer(text)):
                return kind
        if (_SECURITY.search(text) or _ASKED.search(text)) and not _SECURITY_NOT.search(text):
            return SecretKind.SECURITY_ANSWER
    if _card_sized_number(text) and not _NOT_SECRET_NUMBER.search(text):
        return SecretKind.CARD
    if cued and _REVERSED.search(text):
        return SecretKind.PASSWORD
    return None


def _card_sized_number(text: str) -> bool:
    for match in _LONG_DIGITS_RE.finditer(text):
        digits = re.sub(r"\D", "", match.group())
        if 15 <= len(digits) <= 19 or (13 <= len(digits) <= 19 and _luhn(digits)):
            return True
    return False


def contains_sensitive(text: str) -> bool:
    """True when `text` holds a secret (find_secret)."""
    return find_secret(text) is not None
