from __future__ import annotations

from django.utils.functional import SimpleLazyObject

from memoryapp import accounts
from memoryapp.providers.llm import llm_configured


def llm_status(request):
    """Whether a language model is configured: without one, every page says so."""
    return {"llm_offline": not llm_configured()}


def signup(request):
    """Whether and how a visitor can get an account (accounts.py), asked only where a page shows it."""
    return {"signup": SimpleLazyObject(accounts.signup_state)}
