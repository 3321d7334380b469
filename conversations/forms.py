from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _


class RenameForm(forms.Form):
    title = forms.CharField(label=_("Title"), max_length=200, strip=True)


class NewChatForm(forms.Form):
    temporary = forms.BooleanField(required=False)
