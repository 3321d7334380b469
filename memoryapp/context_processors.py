from __future__ import annotations

from django.conf import settings
from django.utils.functional import SimpleLazyObject

from memoryapp import accounts


def llm_status(request):
    """Whether a language model is configured: the offline provider is labelled in every page."""
    return {"llm_offline": not (settings.OPENAI_BASE_URL or settings.OPENAI_API_KEY)}


def signup(request):
    """Whether and how a visitor can get an account (accounts.py), asked only where a page shows it."""
    return {"signup": SimpleLazyObject(accounts.signup_state)}
