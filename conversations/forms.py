from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from .models import MAX_TITLE_LENGTH


class RenameForm(forms.Form):
    title = forms.CharField(label=_("Title"), max_length=MAX_TITLE_LENGTH, strip=True)


class NewChatForm(forms.Form):
    temporary = forms.BooleanField(required=False)
