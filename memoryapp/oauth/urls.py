"""The authorization server's routes, at the origin's root and without trailing slashes: clients build
/authorize, /token and /register on the origin (Claude.ai does), and a POST to /token/ would only be
redirected. Discovery (RFC 8414, RFC 9728) at /.well-known/. The library's application management and
OpenID Connect routes are not served. Included at the root by memoryapp/urls.py."""

from __future__ import annotations

from django.urls import path
from oauth2_provider import views as dot

from . import views

app_name = "oauth2_provider"  # the namespace the library reverses its endpoints in (discovery, iss)

urlpatterns = [
    path(".well-known/oauth-authorization-server", dot.OAuthServerMetadataView.as_view(), name="oauth-server-metadata"),
    path(
        ".well-known/oauth-protected-resource",
        views.ProtectedResourceMetadataView.as_view(),
        name="oauth-resource-metadata",
    ),
    path(
        ".well-known/oauth-protected-resource/mcp",
        views.ProtectedResourceMetadataView.as_view(),
        name="oauth-resource-metadata-mcp",
    ),
    path(
        ".well-known/oauth-protected-resource/api",
        views.ProtectedResourceMetadataView.as_view(),
        name="oauth-resource-metadata-api",
    ),
    path("authorize", views.ConsentView.as_view(), name="authorize"),
    path("token", views.LimitedTokenView.as_view(), name="token"),
    path("revoke", dot.RevokeTokenView.as_view(), name="revoke-token"),
    path("register", views.RegisterView.as_view(), name="dcr-register"),
    path("register/<str:client_id>", views.RegistrationView.as_view(), name="dcr-register-management"),
]
