"""The login page, with failed attempts limited per client address and username."""
from __future__ import annotations

from django.conf import settings
from django.contrib.auth.views import LoginView
from django.utils.translation import gettext as _

from memoryapp import ratelimit

WINDOW_SECONDS = 15 * 60


def _bucket(request) -> str:
    username = (request.POST.get("username") or "").strip().lower()[:150]
    return f"login-failures:{request.META.get('REMOTE_ADDR', '')}:{username}"


class RateLimitedLoginView(LoginView):
    def post(self, request, *args, **kwargs):
        if ratelimit.count(_bucket(request), WINDOW_SECONDS) >= settings.LOGIN_FAILURES_PER_15_MINUTES:
            form = self.get_form()
            form.errors.clear()
            form.add_error(None, _("Too many failed attempts. Wait 15 minutes and try again."))
            return self.render_to_response(self.get_context_data(form=form), status=429)
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form):
        ratelimit.hit(_bucket(self.request), WINDOW_SECONDS)
        return super().form_invalid(form)
