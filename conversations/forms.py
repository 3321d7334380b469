from __future__ import annotations

import json
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from memoryapp.engine.chat_state import store

from .models import MAX_TITLE_LENGTH


class RenameForm(forms.Form):
    title = forms.CharField(label=_("Title"), max_length=MAX_TITLE_LENGTH, strip=True)


class NewChatForm(forms.Form):
    temporary = forms.BooleanField(required=False)


def parse_value(text: str) -> Any:
    """What the panel's value box means: text that reads as JSON (a number, a list, an object, a quoted
    string) is that JSON; anything else is the text itself. `null` would remove the entry: it stays text."""
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return text if value is None else value


class ChatStateEntryForm(forms.Form):
    """One entry of the chat's "Keeping in mind" panel, added or edited by hand (views.chat_state_put)."""

    key = forms.CharField(label=_("Name"), max_length=store.MAX_KEY_CHARS, strip=True)
    value = forms.CharField(label=_("Value"), strip=True, widget=forms.Textarea(attrs={"rows": 2}))

    def clean_key(self) -> str:
        try:
            return store.check_key(self.cleaned_data["key"])
        except store.ChatStateInvalid:
            raise forms.ValidationError(
                _("A name of up to %(count)s characters, without / or control characters.")
                % {"count": store.MAX_KEY_CHARS}
            ) from None

    def clean_value(self) -> Any:
        return parse_value(self.cleaned_data["value"])
