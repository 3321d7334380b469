"""Language-model providers: pick one with `get_llm()`.

An endpoint (OPENAI_BASE_URL) or a key (OPENAI_API_KEY) selects `OpenAICompatibleLLM`;
otherwise the deterministic `OfflineLLM` answers, and the UI labels it as offline.
Settings come from Django settings when configured, else the environment. The provider is
built once per process; `reset_llm()` (or `get_llm.cache_clear()`) drops it, e.g. in tests
or on Django's `setting_changed` signal.
"""

from __future__ import annotations

import functools
import os
from typing import Any

from .base import LLMProvider
from .errors import ProviderError, ProviderOutputError
from .offline import OfflineLLM
from .openai_compat import OpenAICompatibleLLM

__all__ = [
    "LLMProvider",
    "OfflineLLM",
    "OpenAICompatibleLLM",
    "ProviderError",
    "ProviderOutputError",
    "get_llm",
    "llm_config",
    "reset_llm",
]

DEFAULT_MODEL = "gpt-4o-mini"
DEFAULT_TIMEOUT_SECONDS = 30.0


def _setting(name: str) -> Any:
    try:
        from django.conf import settings
    except ImportError:  # used outside Django (scripts, bench/)
        settings = None
    # `configured` stays False until first use, so a named settings module counts too.
    django_on = settings is not None and (settings.configured or os.environ.get("DJANGO_SETTINGS_MODULE"))
    if django_on and hasattr(settings, name):
        return getattr(settings, name)
    return os.environ.get(name)


def llm_config() -> dict[str, Any]:
    """The provider settings in effect; a bad timeout fails loudly rather than defaulting."""
    raw_timeout = _setting("LLM_TIMEOUT_SECONDS")
    try:
        timeout = float(raw_timeout) if raw_timeout not in (None, "") else DEFAULT_TIMEOUT_SECONDS
    except (TypeError, ValueError):
        raise ValueError(f"LLM_TIMEOUT_SECONDS must be a number of seconds, not {raw_timeout!r}") from None
    if timeout <= 0:
        raise ValueError(f"LLM_TIMEOUT_SECONDS must be positive, not {raw_timeout!r}")
    return {
        "base_url": _setting("OPENAI_BASE_URL") or None,
        "api_key": _setting("OPENAI_API_KEY") or None,
        "model": _setting("LLM_MODEL") or DEFAULT_MODEL,
        "timeout": timeout,
    }


@functools.lru_cache(maxsize=1)
def get_llm() -> LLMProvider:
    config = llm_config()
    if config["base_url"] or config["api_key"]:
        return OpenAICompatibleLLM(**config)
    return OfflineLLM()


def reset_llm(**_: Any) -> None:
    """Forget the cached provider (accepts signal kwargs so it can be a receiver)."""
    get_llm.cache_clear()
