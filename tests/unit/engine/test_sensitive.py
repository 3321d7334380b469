"""The secrets detector (engine/sensitive.py): a credential with its value is a secret in either language, a
credential only mentioned is not. The holdout (bench/secret_cases/holdout) is measured by bench.secrets, never here."""

from __future__ import annotations

import pytest
from django.utils import translation

from bench.secrets import load_cases
from memoryapp.engine import sensitive
from memoryapp.engine.errors import MemoryValidationError
from memoryapp.engine.memories.validation import MemoryFields, parse
from memoryapp.engine.sensitive import SecretKind, find_secret


@pytest.mark.parametrize(
    "text, kind",
    [
        ("my bank PIN is 4821 btw", SecretKind.PIN),  # the sentence that became a memory before
        ("the code for my phone is one three seven nine", SecretKind.PIN),  # digits said in words
        ("密码是幺三五七", SecretKind.PASSWORD),
        ("支付密码是870412", SecretKind.PASSWORD),
        ("my wifi pw is rainbowunicorn", SecretKind.PASSWORD),
        ("I'm going to use Marigold!42 as my new master password", SecretKind.PASSWORD),
        ("身份证号 110101199003071234", SecretKind.ID_NUMBER),
        ("my social is 555-12-3456", SecretKind.ID_NUMBER),
        ("护照号码 E12345678", SecretKind.PASSPORT),
        ("passport no 561234987", SecretKind.PASSPORT),
        ("我的银行卡号是 6222 0202 0012 3456 789", SecretKind.CARD),
        ("my IBAN is FR14 2004 1010 0505 0001 3M02 606", SecretKind.BANK_ACCOUNT),
        ("4916338506082832 is my visa", SecretKind.CARD),
        ("卡背后三位数是 552", SecretKind.CARD),
        ("my gitlab token glpat-xR4nD0mT0k3nXYZ123", SecretKind.API_KEY),
        ("mother's maiden name for the bank: Novak", SecretKind.SECURITY_ANSWER),
        ("密保问题答案是北京", SecretKind.SECURITY_ANSWER),
        ("验证码 882913", SecretKind.OTP),
        ("the login code the bank sent me is 118204", SecretKind.OTP),
    ],
)
def test_it_finds_a_secret_said_in_words(text, kind):
    assert find_secret(text) == kind


@pytest.mark.parametrize(
    "text",
    [
        "I keep everything in 1Password as my password manager",
        "I forgot my password again",
        "the password is on a sticky note under the keyboard",
        "我用1Password管理所有密码",
        "打印机密码在墙上贴着",
        "my passport is valid until 2030",
        "I changed my PIN in 2023",
        "I pin my dependencies and have 2 cats",
        "the zip code is 10001",
        "error code 404 keeps showing up on my blog",
        "my order number is 113-5563920-1132205",
        "快递单号 YT7512345678901",  # looks like an IBAN, fails its check
        "账户余额还剩 3200 块",
        "尾号0005的卡是我网购用的",
        "my phone is +44 7700 900123",
    ],
)
def test_it_leaves_a_near_miss_alone(text):
    assert find_secret(text) is None


@pytest.mark.parametrize("split", ["train", "dev"])
def test_no_written_secret_passes_and_few_ordinary_sentences_are_blocked(split):
    cases = load_cases(split)
    stored = [c["text"] for c in cases if c["secret"] and find_secret(c["text"]) is None]
    blocked = [c["text"] for c in cases if not c["secret"] and find_secret(c["text"]) is not None]
    assert stored == []
    assert len(blocked) <= 0.03 * sum(not c["secret"] for c in cases), blocked


@pytest.mark.parametrize(
    "language, words",
    [
        ("en", "content looks like it holds a passport number"),
        ("zh-hans", "内容似乎包含护照号码"),
    ],
)
def test_the_refusal_says_what_it_found_in_the_users_language(language, words):
    with translation.override(language), pytest.raises(MemoryValidationError) as refused:
        parse(MemoryFields, {"content": "my passport number is C01X00T47"})
    assert refused.value.field == "content" and refused.value.message.startswith(words)


@pytest.mark.parametrize("split", ["train", "dev"])
def test_the_cue_prefilter_never_changes_an_answer(split):
    """find_secret skips the rules that tie a credential to a value when no credential is named at all: on
    every written case, cued or not, its answer is the one all the rules give."""
    texts = [c["text"] for c in load_cases(split)]
    texts += [
        "Alice cancelled chess openings since last year with the kids (note 4821).",
        "我的银行卡号是 6222 0202 0012 3456 789",
        "4916338506082832 is my visa",
        "870412是我的支付密码",
    ]
    assert [find_secret(t) for t in texts] == [sensitive._secret_in(t, cued=True) for t in texts]
