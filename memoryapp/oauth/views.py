"""django-oauth-toolkit's views as memoryapp serves them: the consent page in the app's look (which client,
which scopes in words, where it sends you back; the write scope can be left out), registration under
memoryapp's rules (registration.py), the token endpoint, and the protected resource metadata of /mcp and
/api. Registration, tokens and the consent's answers are limited per address (limits.py)."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.utils.translation import gettext_lazy as _
from oauth2_provider.models import get_application_model
from oauth2_provider.views import (
    AuthorizationView,
    DynamicClientRegistrationView,
    OAuthProtectedResourceMetadataView,
    TokenView,
)
from oauth2_provider.views.dynamic_client_registration import DynamicClientRegistrationManagementView
from oauthlib.oauth2.rfc6749.errors import InvalidClientIdError, InvalidRequestError, OAuth2Error

from memoryapp.lib.origin import RESOURCE_METADATA_PATH, request_origin
from memoryapp.principals import READ, WRITE

from . import limits, registration

SCOPE_WORDS = {
    READ: _("Search and read your memories"),
    WRITE: _("Add, change and delete your memories"),
}


class ConsentView(AuthorizationView):
    """GET: the consent page (after the login page, which sends the user back here). POST: Allow or Deny,
    then the redirect to the client with a code, or with error=access_denied."""

    def dispatch(self, request, *args, **kwargs):
        """A URL the standard library cannot even parse (https://[::1), and a consent for a client that is not
        registered, get the error page here: the library would raise a server error on either."""
        if request.user.is_authenticated:
            data = request.POST if request.method == "POST" else request.GET
            urls = data.getlist("redirect_uri") + " ".join(data.getlist("resource")).split()
            broken = next((url for url in urls if not _parses(url)), None)
            if broken is not None:
                self.oauth2_data = {}
                error = InvalidRequestError(description=f"{broken!r} is not a URL")
                return self.render_to_response({"error": error}, status=400)
            if request.method == "POST" and not _client_exists(data.get("client_id", "")):
                self.oauth2_data = {}
                return self.render_to_response({"error": InvalidClientIdError()}, status=400)
        return super().dispatch(request, *args, **kwargs)

    def post(self, request, *args, **kwargs):
        """Allow or Deny, at most OAUTH_TOKEN_REQUESTS_PER_MINUTE a minute from one address: past it the error
        page (429), and no code is made."""
        allowed = settings.OAUTH_TOKEN_REQUESTS_PER_MINUTE
        if not limits.take(request, "oauth-consent", allowed, limits.MINUTE):
            self.oauth2_data = {}
            error = SlowDown(description=f"too many answers from this address: at most {allowed} a minute")
            response = self.render_to_response({"error": error}, status=429)
            response["Retry-After"] = limits.retry_after(limits.MINUTE)
            return response
        return super().post(request, *args, **kwargs)

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        scopes = context.get("scopes") or []
        context["scope_words"] = [(scope, SCOPE_WORDS.get(scope, scope)) for scope in scopes if scope != WRITE]
        context["write_requested"] = WRITE in scopes
        context["write_words"] = SCOPE_WORDS[WRITE]
        redirect_uri = context.get("redirect_uri") or ""
        context["redirect_host"] = urlsplit(redirect_uri).netloc or redirect_uri
        return context

    def form_valid(self, form):
        """The write scope goes only with its box ticked: a user may let a client read and not write. A
        request for writing alone, unticked, is a Deny (an empty scope would mean the default ones)."""
        requested = form.cleaned_data.get("scope", "").split()
        if WRITE in requested and not self.request.POST.get("write"):
            kept = [scope for scope in requested if scope != WRITE]
            form.cleaned_data["scope"] = " ".join(kept)
            if not kept:
                form.cleaned_data["allow"] = False
        return super().form_valid(form)

    def render_to_response(self, context, **response_kwargs):
        response = super().render_to_response(context, **response_kwargs)
        return _allow_form_action(response, context.get("redirect_uri"))


class SlowDown(OAuth2Error):
    error = "slow_down"  # RFC 8628 §3.5, registered for the token endpoint: wait, then ask again
    status_code = 429


def _parses(url: str) -> bool:
    try:
        urlsplit(url).port  # noqa: B018  an unclosed [ or a port that is not a number raises
    except ValueError:
        return False
    return True


def _client_exists(client_id: str) -> bool:
    """The consent's POST names its client in a hidden field; one that is not registered (any more) gets the
    error page, not a server error."""
    return bool(client_id) and get_application_model().objects.filter(client_id=client_id).exists()


def _allow_form_action(response, redirect_uri: str | None):
    """The page's CSP says `form-action 'self'`, and Chrome applies it to the redirects that follow a form's
    POST: Allow's 302 to the client's redirect URI would be blocked. The consent page allows that one
    origin (already checked against the client's registered URIs), as django-csp's @csp_update does."""
    if not redirect_uri:
        return response
    parts = urlsplit(redirect_uri)
    if parts.scheme in ("http", "https") and parts.netloc:
        source = f"{parts.scheme}://{parts.netloc}"
    elif parts.scheme:
        source = f"{parts.scheme}:"
    else:
        return response
    response._csp_update = {"form-action": [source]}
    return response


class LimitedTokenView(TokenView):
    """POST /token: the library's (codes and refresh tokens for access tokens), at most
    OAUTH_TOKEN_REQUESTS_PER_MINUTE a minute from one address; past it a 429 `slow_down` with Retry-After."""

    def post(self, request, *args, **kwargs):
        allowed = settings.OAUTH_TOKEN_REQUESTS_PER_MINUTE
        if not limits.take(request, "oauth-token", allowed, limits.MINUTE):
            return limits.too_many(
                SlowDown.error, f"too many token requests from this address: at most {allowed} a minute", limits.MINUTE
            )
        return super().post(request, *args, **kwargs)


class RegisterView(DynamicClientRegistrationView):
    """POST /register: open registration (RFC 7591), for authorization-code clients only, throttled per
    address."""

    def post(self, request, *args, **kwargs):
        refusal = registration.refusal(request.body)
        if refusal is not None:
            return registration.refused(refusal)
        throttled = registration.throttled(request)
        if throttled is not None:
            return throttled
        return super().post(request, *args, **kwargs)


class RegistrationView(DynamicClientRegistrationManagementView):
    """GET, PUT, DELETE /register/<client_id> with the registration token (RFC 7592): an update obeys the
    same rules as the registration."""

    def put(self, request, client_id: str, *args, **kwargs):
        refusal = registration.refusal(request.body)
        if refusal is not None:
            return registration.refused(refusal)
        return super().put(request, client_id, *args, **kwargs)


class ProtectedResourceMetadataView(OAuthProtectedResourceMetadataView):
    """RFC 9728: /.well-known/oauth-protected-resource/mcp describes /mcp, …/api describes the REST API (the
    resources that take OAuth tokens); the bare path describes the origin. The resource and its authorization server come from
    PUBLIC_URL when it is set, as the issuer does."""

    def get_resource(self, request):
        return request_origin(request) + request.path.removeprefix(RESOURCE_METADATA_PATH)

    def get_authorization_servers(self, request):
        return [request_origin(request)]
