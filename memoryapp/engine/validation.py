"""Input to the write path, validated once at the boundary (strict pydantic, one readable error)."""
from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from memoryapp.models import MAX_CONTENT_LENGTH, Lifecycle, MemoryKind

from .errors import MemoryValidationError

MAX_CONTEXT_LENGTH = 2 * MAX_CONTENT_LENGTH


class MemoryInput(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    content: str = Field(min_length=1, max_length=MAX_CONTENT_LENGTH)
    kind: MemoryKind = MemoryKind.FACT
    importance: float = Field(default=0.5, ge=0, le=1, allow_inf_nan=False)
    confidence: float = Field(default=0.8, ge=0, le=1, allow_inf_nan=False)
    lifecycle: Lifecycle = Lifecycle.WORKING
    valid_from: datetime | None = None
    # Where it was learnt (the message it came from): searched, never shown.
    context: str = Field(default="", max_length=MAX_CONTEXT_LENGTH)

    @field_validator("content", "context")
    @classmethod
    def _no_control_characters(cls, value: str, info) -> str:
        if "\x00" in value:
            raise ValueError(f"{info.field_name} must not contain NUL characters")
        return value


class MemoryPatch(BaseModel):
    """An edit: any subset of the editable fields."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    content: str | None = Field(default=None, min_length=1, max_length=MAX_CONTENT_LENGTH)
    kind: MemoryKind | None = None
    importance: float | None = Field(default=None, ge=0, le=1, allow_inf_nan=False)
    lifecycle: Lifecycle | None = None


def format_first_error(exc: ValidationError) -> tuple[str, str | None]:
    error = exc.errors()[0]
    field = ".".join(str(part) for part in error["loc"]) or None
    message = error["msg"].removeprefix("Value error, ")
    if field == "content" and error["type"] == "string_too_long":
        message = f"content is longer than {MAX_CONTENT_LENGTH} characters"
    elif field == "content" and error["type"] == "string_too_short":
        message = "content is empty"
    elif field:
        message = f"{field}: {message}"
    return message, field


def parse(model: type[BaseModel], data: dict) -> BaseModel:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        message, field = format_first_error(exc)
        raise MemoryValidationError(message, field) from None
