"""Language-model providers: `get_llm()` is the configured one, or None when no model is configured.

An endpoint (OPENAI_BASE_URL) or a key (OPENAI_API_KEY) selects `OpenAICompatibleLLM`. Without
either there is no model: the engine then runs each task's default (memoryapp/engine/llm/), and the
UI says so (`llm_configured()`).
Settings come from Django settings (memoryapp/settings.py reads the environment and holds the
defaults). The provider is built once per process; `reset_llm()` drops it, as Django's
`setting_changed` signal does for the settings it reads.
"""

from __future__ import annotations

import functools
from typing import Any

from django.conf import settings
from django.core.signals import setting_changed

from .base import LLMProvider
from .errors import ProviderError, ProviderOutputError
from .openai_compat import OpenAICompatibleLLM

__all__ = [
    "LLMProvider",
    "OpenAICompatibleLLM",
    "ProviderError",
    "ProviderOutputError",
    "get_llm",
    "llm_config",
    "llm_configured",
    "reset_llm",
]

SETTINGS = ("OPENAI_BASE_URL", "OPENAI_API_KEY", "LLM_MODEL", "LLM_TIMEOUT_SECONDS")


def llm_config() -> dict[str, Any]:
    """The provider settings in effect; a bad timeout fails loudly rather than defaulting."""
    raw_timeout = settings.LLM_TIMEOUT_SECONDS
    try:
        timeout = float(raw_timeout)
    except (TypeError, ValueError):
        raise ValueError(f"LLM_TIMEOUT_SECONDS must be a number of seconds, not {raw_timeout!r}") from None
    if timeout <= 0:
        raise ValueError(f"LLM_TIMEOUT_SECONDS must be positive, not {raw_timeout!r}")
    return {
        "base_url": settings.OPENAI_BASE_URL or None,
        "api_key": settings.OPENAI_API_KEY or None,
        "model": settings.LLM_MODEL,
        "timeout": timeout,
    }


def llm_configured() -> bool:
    """Whether a language model is configured (cheap: builds no client)."""
    return bool(settings.OPENAI_BASE_URL or settings.OPENAI_API_KEY)


@functools.lru_cache(maxsize=1)
def get_llm() -> LLMProvider | None:
    """The configured model, built once per process; None when none is configured."""
    config = llm_config()  # a bad timeout fails loudly whether or not a model is configured
    if not (config["base_url"] or config["api_key"]):
        return None
    return OpenAICompatibleLLM(**config)


def reset_llm(**_: Any) -> None:
    """Forget the cached provider (accepts signal kwargs so it can be a receiver)."""
    get_llm.cache_clear()


def _on_setting_changed(setting: str, **kwargs: Any) -> None:
    if setting in SETTINGS:
        reset_llm()


setting_changed.connect(_on_setting_changed)
