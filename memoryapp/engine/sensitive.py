"""Text that must never become a memory: credentials, card numbers, identity numbers.

Used by the offline extractor and by the extraction pipeline on whatever a real model
proposes. It errs on the side of dropping: a lost preference is cheap, a stored password is not.
"""

from __future__ import annotations

import re

# Digits are matched with look-arounds, not \b: in Python's Unicode regexes a CJK character
# counts as a word character, so "号是110101..." has no \b before the digits.
_PATTERNS: tuple[re.Pattern[str], ...] = (
    # Credentials named in words.
    re.compile(
        r"pass\s*words?|passwd|passphrase|\bpwd\b|\bpin\s*(?:code|number)\b"
        r"|api[\s_-]*keys?|secret[\s_-]*keys?|access[\s_-]*tokens?|auth[\s_-]*tokens?|bearer\s+\S+"
        r"|private[\s_-]*keys?|client[\s_-]*secret|credentials?\b",
        re.IGNORECASE,
    ),
    re.compile(r"密码|口令|密钥|秘钥|令牌|验证码|身份证|银行卡号|信用卡号|卡号|私钥"),
    # Key-shaped strings: OpenAI style sk-..., GitHub, AWS, Slack.
    re.compile(r"\bsk-[A-Za-z0-9_-]{16,}|\bgh[pousr]_[A-Za-z0-9]{20,}|\bAKIA[0-9A-Z]{16}\b|\bxox[abprs]-[A-Za-z0-9-]{10,}"),
    # 16-digit card numbers, with optional spaces or dashes between digits.
    re.compile(r"(?<![\d-])(?:\d[ -]?){15}\d(?![\d-])"),
    # 18-character PRC resident ID numbers (last one may be X).
    re.compile(r"(?<!\d)\d{17}[\dXx](?![\dA-Za-z])"),
)


def contains_sensitive(text: str) -> bool:
    """True when `text` looks like it holds a secret or an identity/card number."""
    return any(pattern.search(text) for pattern in _PATTERNS)
