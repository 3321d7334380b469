"""Who gets an account: the install's first account administers it; after it, `settings.SIGNUP` says.

    closed    (the default) nobody signs up; the administrator creates accounts (Django admin)
    open      anyone who reaches the server signs up and chats at once
    approval  anyone signs up; the account stays inactive until an administrator approves it

The first account is the one `./run` creates for the demo login on the embedded default; on an install
with no account yet (compose), the first person to sign up. The administrator approves accounts in
the Django admin (Users, filtered by "waiting for approval", action "Approve").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, models, transaction
from django.utils.translation import gettext_lazy as _

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractUser

FIRST_ACCOUNT_LOCK = 0x6D656D6F  # pg advisory lock: two first sign-ups at once make one administrator


class SignupMode(models.TextChoices):
    CLOSED = "closed", _("Closed")
    OPEN = "open", _("Open")
    APPROVAL = "approval", _("Open, approved by an administrator")


class SignupClosed(Exception):
    """Sign-up is closed and the install already has its administrator."""


@dataclass(frozen=True)
class SignupState:
    mode: SignupMode
    first: bool  # no account yet: whoever signs up now administers the install

    @property
    def available(self) -> bool:
        return self.first or self.mode != SignupMode.CLOSED

    @property
    def needs_approval(self) -> bool:
        return not self.first and self.mode == SignupMode.APPROVAL


def signup_state() -> SignupState:
    return SignupState(SignupMode(settings.SIGNUP), first=not get_user_model().objects.exists())


def create_account(user: AbstractUser) -> SignupState:
    """Save a new (unsaved) account as the sign-up rules say: the first administers the install; after
    it, with SIGNUP=approval, it waits inactive. Raises SignupClosed when nobody may sign up."""
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [FIRST_ACCOUNT_LOCK])
        state = signup_state()
        if not state.available:
            raise SignupClosed
        user.is_staff = user.is_superuser = state.first
        user.is_active = not state.needs_approval
        user.save()
    return state


def awaiting_approval(username: str, password: str) -> bool:
    """True when these are the right credentials of an account that waits for approval (inactive, never
    logged in); an account the administrator turned off after use is not "waiting"."""
    user = get_user_model().objects.filter(username=username, is_active=False, last_login__isnull=True).first()
    return user is not None and user.check_password(password)


def waiting_accounts():
    """Accounts that wait for an administrator's approval, oldest first."""
    return get_user_model().objects.filter(is_active=False, last_login__isnull=True).order_by("date_joined", "pk")
