from __future__ import annotations

from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView

from memoryapp.api.routes import api
from memoryapp.web import language, views
from memoryapp.web.login import RateLimitedLoginView

urlpatterns = [
    path("", include("conversations.urls")),
    path("settings/", include("memoryapp.web.urls")),
    path("api/", api.urls),
    path("healthz", views.healthz, name="healthz"),
    # Pages name the icon (base.html); browsers and tools that ask for the old address get it too.
    path("favicon.ico", RedirectView.as_view(url=static("favicon.svg"))),
    path("accounts/signup/", views.signup, name="signup"),
    path("accounts/login/", RateLimitedLoginView.as_view(), name="login"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("i18n/setlang/", language.set_language, name="set_language"),
    path("admin/", admin.site.urls),
    # OAuth 2.1 for remote MCP clients, at the root: /.well-known/oauth-*, /authorize, /token, /revoke, /register
    path("", include("memoryapp.oauth.urls")),
]
