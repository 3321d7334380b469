"""Forms for the settings pages: the memory filters (a plain GET form) and the settings toggles."""

from __future__ import annotations

from datetime import datetime, time

from django import forms
from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from memoryapp.engine.errors import MemoryValidationError
from memoryapp.engine.memories.listing import SAVED_KINDS
from memoryapp.engine.memories.validation import MemoryPatch, parse
from memoryapp.engine.recall.recipes import SearchMethod
from memoryapp.models import (
    MAX_CONTENT_LENGTH,
    MAX_CUE_LENGTH,
    MAX_CUES,
    MemoryKind,
    MemorySettings,
    MemorySource,
    MemoryStatus,
)

RANGE_CHOICES = [
    ("", _("Any time")),
    ("day", _("Last 24 hours")),
    ("week", _("Last 7 days")),
    ("month", _("Last 30 days")),
    ("year", _("Last year")),
]


class MemoryFilterForm(forms.Form):
    q = forms.CharField(required=False, max_length=500, label=_("Search"))
    # No type: the saved memories; chat episodes are a tab of their own (listing.SAVED_KINDS). A search
    # with no type looks through both.
    kind = forms.ChoiceField(
        required=False,
        label=_("Type"),
        choices=[
            ("", _("Saved memories")),
            *[(k, label) for k, label in MemoryKind.choices if k in SAVED_KINDS],
            (MemoryKind.EPISODE, _("Chat episodes")),
        ],
    )
    status = forms.ChoiceField(required=False, label=_("Status"), choices=MemoryStatus.choices)
    range = forms.ChoiceField(required=False, label=_("Time"), choices=RANGE_CHOICES)
    source = forms.ChoiceField(
        required=False, label=_("Source"), choices=[("", _("Any source")), *MemorySource.choices]
    )
    at = forms.DateField(required=False, label=_("As of"), widget=forms.DateInput(attrs={"type": "date"}))
    method = forms.ChoiceField(required=False, label=_("Match"), choices=SearchMethod.choices)

    def clean_at(self):
        day = self.cleaned_data.get("at")
        if day and day > timezone.localdate():
            raise forms.ValidationError(_("Pick a day that has begun: the future holds no memories yet."))
        return day

    def filter_values(self) -> dict:
        """Valid values only: a bad parameter falls back to its default (and the form shows its error)."""
        self.is_valid()
        data = self.cleaned_data
        kind, q = data.get("kind", ""), data.get("q", "")
        return {
            "q": q,
            "kind": kind,
            "kinds": () if kind or q.strip() else SAVED_KINDS,
            "status": data.get("status") or MemoryStatus.ACTIVE,
            "range_name": data.get("range", ""),
            "source": data.get("source", ""),
            "at": self.moment(data.get("at")),
            "method": data.get("method") or SearchMethod.HYBRID,
        }

    @staticmethod
    def moment(day) -> datetime | None:
        """ "As of <day>": what was true at the end of that day (or now, for today): its last instant, so the
        page names the day picked, not the midnight after it."""
        if day is None:
            return None
        end = timezone.make_aware(datetime.combine(day, time.max))
        return min(end, timezone.now())


class MemoryEditForm(forms.Form):
    content = forms.CharField(
        max_length=MAX_CONTENT_LENGTH, widget=forms.Textarea(attrs={"rows": 3}), label=_("Content")
    )
    cues = forms.CharField(
        required=False,
        max_length=MAX_CUES * (MAX_CUE_LENGTH + 2),
        widget=forms.Textarea(attrs={"rows": 3}),
        label=_("Helps with"),
        help_text=_(
            "Situations or questions in which this memory helps, one per line: the chat finds the memory by them too."
        ),
    )
    kind = forms.ChoiceField(choices=MemoryKind.choices, label=_("Type"))
    importance = forms.IntegerField(min_value=0, max_value=100, label=_("Importance (%)"))

    def clean(self) -> dict:
        """The fields above shape the widgets; the engine's rules (engine/memories/validation.py) decide, and
        their error is shown on the field it names."""
        data = super().clean()
        if not self.errors:
            try:
                parse(MemoryPatch, self.changes())
            except MemoryValidationError as exc:
                field = (exc.field or "").split(".")[0]  # "cues.2": the third line of the cues
                self.add_error(field if field in self.fields else None, exc.message)
        return data

    def changes(self) -> dict:
        """The edit, as the write path takes it (importance from a percentage to 0-1)."""
        data = self.cleaned_data
        cues = [line.strip() for line in data.get("cues", "").splitlines() if line.strip()]
        return {"content": data["content"], "kind": data["kind"], "importance": data["importance"] / 100, "cues": cues}


class MemorySettingsForm(forms.ModelForm):
    language = forms.ChoiceField(
        required=False, label=_("Language"), choices=[("", _("Browser default")), *settings.LANGUAGES]
    )

    class Meta:
        model = MemorySettings
        fields = ["memory_enabled", "auto_extract", "show_citations", "extract_every_n_turns", "language"]
        labels = {
            "memory_enabled": _("Memory on"),
            "auto_extract": _("Learn memories automatically"),
            "show_citations": _("Show which memories a reply used"),
            "extract_every_n_turns": _("Look for new memories every N messages"),
        }
        help_texts = {
            "auto_extract": _("When off, new memories wait for your confirmation."),
        }

    def clean_extract_every_n_turns(self) -> int:
        value = self.cleaned_data["extract_every_n_turns"]
        if not 1 <= value <= 50:
            raise forms.ValidationError(_("Choose a number from 1 to 50."))
        return value


class ApiTokenForm(forms.Form):
    name = forms.CharField(max_length=100, label=_("Token name"))


class AccountDeleteForm(forms.Form):
    """Deleting the account asks for the password again: a session left open is not enough."""

    password = forms.CharField(
        label=_("Your password"), strip=False, widget=forms.PasswordInput(attrs={"autocomplete": "current-password"})
    )

    def __init__(self, user, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_password(self) -> str:
        password = self.cleaned_data["password"]
        if not self.user.check_password(password):
            raise forms.ValidationError(_("That is not your password."), code="wrong_password")
        return password
