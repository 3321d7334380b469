from __future__ import annotations

from django.conf import settings


def llm_status(request):
    """Whether a language model is configured: the offline provider is labelled in every page."""
    return {"llm_offline": not (settings.OPENAI_BASE_URL or settings.OPENAI_API_KEY)}
