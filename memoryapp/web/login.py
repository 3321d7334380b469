"""The login page, with failed attempts limited per client address and username; an account that
waits for approval is told so (accounts.py)."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.views import LoginView
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from memoryapp import accounts
from memoryapp.web import ratelimit

WINDOW_SECONDS = 15 * 60


def _bucket(request) -> str:
    username = (request.POST.get("username") or "").strip().lower()[:150]
    return f"login-failures:{request.META.get('REMOTE_ADDR', '')}:{username}"


class RateLimitedAuthenticationForm(AuthenticationForm):
    """Refuses before the password is checked once the limit is reached: a blocked guess costs no hash."""

    blocked = False

    def clean(self):
        if ratelimit.count(_bucket(self.request), WINDOW_SECONDS) >= settings.LOGIN_FAILURES_PER_15_MINUTES:
            self.blocked = True
            raise ValidationError(_("Too many failed attempts. Wait 15 minutes and try again."), code="rate_limited")
        try:
            return super().clean()
        except ValidationError:
            username, password = self.cleaned_data.get("username"), self.cleaned_data.get("password")
            if username and password and accounts.awaiting_approval(username, password):
                raise ValidationError(
                    _("Your account waits for an administrator's approval. You can log in once it is approved."),
                    code="inactive",
                ) from None
            raise


class RateLimitedLoginView(LoginView):
    authentication_form = RateLimitedAuthenticationForm

    def form_invalid(self, form):
        if form.blocked:
            return self.render_to_response(self.get_context_data(form=form), status=429)
        ratelimit.hit(_bucket(self.request), WINDOW_SECONDS)
        return super().form_invalid(form)
