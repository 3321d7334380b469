"""Accounts in the Django admin: the ones waiting for approval (SIGNUP=approval) and the action that
approves them (accounts.py)."""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from memoryapp import accounts

User = get_user_model()


class WaitingForApprovalFilter(admin.SimpleListFilter):
    title = _("approval")
    parameter_name = "waiting"

    def lookups(self, request, model_admin):
        return [("yes", _("Waiting for approval"))]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(pk__in=accounts.waiting_accounts().values("pk"))
        return queryset


@admin.action(description=_("Approve the selected accounts (they can log in)"))
def approve(modeladmin, request, queryset):
    approved = queryset.filter(is_active=False).update(is_active=True)
    modeladmin.message_user(
        request,
        ngettext("%(count)d account approved.", "%(count)d accounts approved.", approved) % {"count": approved},
        messages.SUCCESS,
    )


admin.site.unregister(User)


@admin.register(User)
class AccountAdmin(UserAdmin):
    actions = [approve]
    list_display = (*UserAdmin.list_display, "is_active", "date_joined")
    list_filter = (WaitingForApprovalFilter, *UserAdmin.list_filter)
