"""What people and programs send, validated once at the boundary (strict pydantic, one readable error).

Each rule is defined here once, and every boundary uses it: the API's schemas (memoryapp/api/schemas.py,
conversations/api.py) are these models, the pages' forms and the chat call them, import validates its
rows with them, and the write path (write.py) parses what it stores with them. tests/unit/test_validation_rules.py
fails on a NUL check written anywhere else.

A memory's content, context and cues never hold a secret (engine/sensitive.py): the refusal says which kind,
in the user's language, so the page, the API and an import's row report all say why.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Annotated, Any, TypeVar

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    WrapValidator,
)
from pydantic_core import PydanticCustomError

from memoryapp.models import MAX_CONTENT_LENGTH, MAX_CUE_LENGTH, MAX_CUES, Lifecycle, MemoryKind

from ..errors import MemoryValidationError
from ..sensitive import SecretKind, find_secret

MAX_CONTEXT_LENGTH = 2 * MAX_CONTENT_LENGTH


def has_nul(text: str) -> bool:
    """Postgres text cannot hold NUL: text with one is refused at the boundary (a 422, a form error,
    a chat notice), never left to fail on save."""
    return "\x00" in text


def _without_nul(value: str) -> str:
    if has_nul(value):
        raise ValueError("must not contain NUL characters")
    return value


def _readable_content(value: Any, handler: ValidatorFunctionWrapHandler) -> str:
    """A memory's content names itself in its two common errors: "content is empty", "... too long"."""
    try:
        return handler(value)
    except ValidationError as exc:
        kind = exc.errors()[0]["type"]
        if kind == "string_too_short":
            raise PydanticCustomError("string_too_short", _("content is empty")) from None
        if kind == "string_too_long":
            raise PydanticCustomError(
                "string_too_long",
                _("content is too long: at most {max_length} characters"),
                {"max_length": MAX_CONTENT_LENGTH},
            ) from None
        raise


SECRET_ERROR = "secret"  # its message is worded whole, in the user's language: never prefixed with the field
SECRET_NAMES = {
    SecretKind.PASSWORD: gettext_lazy("a password"),
    SecretKind.PIN: gettext_lazy("a PIN or passcode"),
    SecretKind.ID_NUMBER: gettext_lazy("an ID number"),
    SecretKind.PASSPORT: gettext_lazy("a passport number"),
    SecretKind.BANK_ACCOUNT: gettext_lazy("a bank account number"),
    SecretKind.CARD: gettext_lazy("a card number"),
    SecretKind.API_KEY: gettext_lazy("an API key or token"),
    SecretKind.SECURITY_ANSWER: gettext_lazy("a security answer"),
    SecretKind.OTP: gettext_lazy("a one-time code"),
    SecretKind.OTHER: gettext_lazy("a secret code"),
}
_FIELD_NAMES = {
    "content": gettext_lazy("content"),
    "context": gettext_lazy("context"),
    "cues": gettext_lazy("cues"),
    "kind": gettext_lazy("kind"),
    "importance": gettext_lazy("importance"),
    "confidence": gettext_lazy("confidence"),
    "lifecycle": gettext_lazy("lifecycle"),
    "valid_from": gettext_lazy("valid from"),
}


# Validation context for rows this app checked before and kept (an import job's rows, parsed again by the
# worker): the secrets check, the slow part, is not run twice.
SECRETS_CHECKED = {"secrets_checked": True}


def _without_secret(field: str):
    def check(value: str, info: ValidationInfo) -> str:
        if info.context and info.context.get("secrets_checked"):
            return value
        kind = find_secret(value)
        if kind is not None:
            message = _(
                "%(field)s looks like it holds %(secret)s: passwords, PINs, codes, keys and ID, passport, "
                "card or account numbers are never stored as memories"
            ) % {"field": _FIELD_NAMES[field], "secret": SECRET_NAMES[kind]}
            raise PydanticCustomError(SECRET_ERROR, str(message), {"secret": kind.value})
        return value

    return AfterValidator(check)


# Any text we store or search: no NUL.
Text = Annotated[str, AfterValidator(_without_nul)]
# A memory's words: trimmed, not empty, at most MAX_CONTENT_LENGTH characters.
Content = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_CONTENT_LENGTH),
    AfterValidator(_without_nul),
    _without_secret("content"),
    WrapValidator(_readable_content),
]
# Where a memory was learnt (the message it came from): searched, never shown.
Context = Annotated[
    str,
    StringConstraints(strip_whitespace=True, max_length=MAX_CONTEXT_LENGTH),
    AfterValidator(_without_nul),
    _without_secret("context"),
]
# One situation in which a memory would help ("building Docker images"): trimmed, short, no secret.
Cue = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_CUE_LENGTH),
    AfterValidator(_without_nul),
    _without_secret("cues"),
]


def _distinct(cues: list[str]) -> list[str]:
    return list(dict.fromkeys(cues))


# A memory's cues: at most MAX_CUES, repeats dropped.
Cues = Annotated[list[Cue], Field(max_length=MAX_CUES), AfterValidator(_distinct)]
# Importance and confidence: a number from 0 to 1 (`false` is not 0, "0.5" is not a number).
Score = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False, strict=True)]


class MemoryFields(BaseModel):
    """A new memory as a person or a program gives it (the API's body, an import row's core)."""

    model_config = ConfigDict(extra="forbid")

    content: Content
    kind: MemoryKind = MemoryKind.FACT
    importance: Score = 0.5
    confidence: Score = 0.8
    lifecycle: Lifecycle = Lifecycle.WORKING
    # Situations in which it would help; without them a model writes some later (engine/memories/cues.py).
    cues: Cues = []


class MemoryInput(MemoryFields):
    """What the write path stores: the fields, and when it became true and where it was learnt."""

    valid_from: datetime | None = None
    context: Context = ""


class MemoryPatch(BaseModel):
    """An edit: any subset of the editable fields."""

    model_config = ConfigDict(extra="forbid")

    content: Content | None = None
    kind: MemoryKind | None = None
    importance: Score | None = None
    lifecycle: Lifecycle | None = None
    cues: Cues | None = None


def readable_error(
    error: Mapping[str, Any], path: Sequence[str | int], where: str | None = None
) -> tuple[str, str | None]:
    """One pydantic error as one sentence and the field it is about: `("limit: Input should be greater
    than or equal to 1", "limit")`; a message that names its field already ("content is empty") stays
    as it is. `where` names the input when no field does ("the request body")."""
    field = ".".join(str(part) for part in path) or None
    subject = str(_FIELD_NAMES.get(field, field)) if field else where
    message = error["msg"].removeprefix("Value error, ")
    if error["type"] in ("enum", "literal_error") and "expected" in error.get("ctx", {}):
        expected = re.findall(r"'([^']*)'", str(error["ctx"]["expected"]))  # pydantic's own list says "or"
        message = _("must be one of %(expected)s") % {"expected": ", ".join(expected)}
    if subject and not message.startswith(subject) and error["type"] != SECRET_ERROR:
        message = _("%(field)s: %(message)s") % {"field": subject, "message": message}
    return message, field


def format_first_error(exc: ValidationError) -> tuple[str, str | None]:
    error = exc.errors()[0]
    return readable_error(error, error["loc"])


ISO_8601 = re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}")


def _date_and_time(value: object) -> object:
    """The schema promises `format: date-time`: ISO 8601 text, not pydantic's other readings of a
    datetime (a number of seconds since 1970, a date alone)."""
    if isinstance(value, datetime) or isinstance(value, str) and ISO_8601.match(value):
        return value
    raise ValueError("must be an ISO 8601 date and time, e.g. 2026-03-15T12:00:00Z")


# A date and time as people and programs send it (the API's filters, a turn's `created_at`).
DateTimeIn = Annotated[datetime, BeforeValidator(_date_and_time)]


Parsed = TypeVar("Parsed", bound=BaseModel)


def parse(model: type[Parsed], data: dict) -> Parsed:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        message, field = format_first_error(exc)
        raise MemoryValidationError(message, field) from None
