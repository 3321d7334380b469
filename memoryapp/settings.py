"""Django settings for memoryapp, every value from the environment (see README's table).

With no DATABASE_URL / REDIS_URL, the embedded servers under var/ are used; importing the settings
only names them. They start where the user asks (`./run`, `manage.py stack start`): see memoryapp/stack/.
"""

from __future__ import annotations

import re
import secrets
from pathlib import Path

import dj_database_url
import redis
import redis.asyncio.retry
import redis.retry
from celery.schedules import crontab
from csp.constants import NONE, SELF, UNSAFE_INLINE
from django.core.exceptions import ImproperlyConfigured
from redis.backoff import ExponentialBackoff

from memoryapp import stack
from memoryapp.lib.envconf import envbool, envchoice, envfloat, envint, envsecret, envstr
from memoryapp.providers.embeddings import catalog as embedding_catalog

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(envstr("MEMORYAPP_VAR_DIR", str(BASE_DIR / "var"))).resolve()
VAR_DIR.mkdir(parents=True, exist_ok=True)


def _secret_key() -> str:
    """SECRET_KEY from the environment, else generated once into var/ and kept."""
    key = envsecret("SECRET_KEY")
    if key:
        return key
    path = VAR_DIR / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


SECRET_KEY = _secret_key()
DEBUG = envbool("DEBUG", False)
ALLOWED_HOSTS = envstr("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]").split(",")
CSRF_TRUSTED_ORIGINS = [o for o in (envstr("CSRF_TRUSTED_ORIGINS", "") or "").split(",") if o]

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "channels",
    "oauth2_provider",  # the OAuth 2.1 authorization server for remote MCP clients (memoryapp/oauth)
    "ninja",  # serves the API docs' Swagger UI from our static files, not a CDN (the CSP allows 'self' only)
    "memoryapp",
    "conversations",
    "memoryapp.pipeline",  # the pipeline's bookkeeping models (runs, suggestions, failed tasks)
    "tasks",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "memoryapp.api.errors.ApiErrorsAsJson",  # /api/ errors from outside the routes (404, 405, 500) as JSON
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "memoryapp.lib.clients.ClientPerRequest",  # which program a request came through: none until its token says
    "memoryapp.web.language.UserLanguageMiddleware",  # a signed-in user's saved language wins over the cookie
    "django.contrib.messages.middleware.MessageMiddleware",
    "django_htmx.middleware.HtmxMiddleware",  # request.htmx: the request came from htmx (HX-Request)
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
]

ROOT_URLCONF = "memoryapp.urls"
ASGI_APPLICATION = "memoryapp.asgi.application"
WSGI_APPLICATION = None

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "memoryapp.web.context_processors.llm_status",
                "memoryapp.web.context_processors.signup",
            ],
        },
    },
]

# --- Stores -----------------------------------------------------------------------------------

EMBEDDED_REDIS_PORT = envint("EMBEDDED_REDIS_PORT", stack.redis.DEFAULT_PORT)
EMBEDDED_POSTGRES = not envstr("DATABASE_URL")
EMBEDDED_REDIS = not envstr("REDIS_URL")
DATABASE_URL = envstr("DATABASE_URL") or stack.postgres_url(VAR_DIR)
REDIS_URL = envstr("REDIS_URL") or stack.redis_url(VAR_DIR, EMBEDDED_REDIS_PORT)
FALKORDB_URL = envstr("FALKORDB_URL") or REDIS_URL

# The share of the machine's memory the embedded Postgres takes as shared_buffers; effective_cache_size,
# work_mem and maintenance_work_mem follow from it (memoryapp/stack/postgres_sizing.py). 0: Postgres' own.
POSTGRES_MEMORY_SHARE = envfloat("POSTGRES_MEMORY_SHARE", 0.25)
if not 0 <= POSTGRES_MEMORY_SHARE <= 0.5:
    raise ImproperlyConfigured(f"POSTGRES_MEMORY_SHARE must be between 0 and 0.5, not {POSTGRES_MEMORY_SHARE}")

DB_CONN_MAX_AGE = envint("DB_CONN_MAX_AGE", 0)
DB_CONNECT_TIMEOUT = envint("DB_CONNECT_TIMEOUT", 5)
# Postgres' price of a random page read for recall's sessions; unset: the server's own (4). 1.1 pays on a
# table of many users (bench.scale --tenants) and costs a small install (memoryapp/engine/recall/session.py).
DB_RANDOM_PAGE_COST = envfloat("DB_RANDOM_PAGE_COST", 0.0)
# A pool of connections per process (psycopg_pool through Django). Without it every request and every
# websocket step opened a connection of its own, Postgres forking a backend for each: under bench.load
# chat sockets then timed out at the handshake (docs/benchmarks/speed.md, Load). DB_CONN_MAX_AGE > 0 keeps one
# connection per thread instead.
DB_POOL_SIZE = envint("DB_POOL_SIZE", 0 if DB_CONN_MAX_AGE else 20)
if DB_POOL_SIZE and DB_CONN_MAX_AGE:
    raise ImproperlyConfigured(
        "Set DB_POOL_SIZE or DB_CONN_MAX_AGE, not both: a pooled connection is not kept per thread"
    )
try:
    # Health checks: a connection that a Postgres restart cut is noticed and replaced before use (the pool
    # checks each one it lends); without them the next chat turn on it failed ("terminating connection").
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=DB_CONN_MAX_AGE, conn_health_checks=True)}
except ValueError as exc:
    raise ImproperlyConfigured(f"DATABASE_URL is not a database URL Django understands: {exc}") from None
if DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
    raise ImproperlyConfigured("DATABASE_URL must point at PostgreSQL 15+ with pgvector (postgres://...)")
DATABASES["default"].setdefault("OPTIONS", {})["connect_timeout"] = DB_CONNECT_TIMEOUT
if DB_POOL_SIZE:
    # `timeout`: how long a request waits for a free connection, as for a new one without the pool.
    DATABASES["default"]["OPTIONS"]["pool"] = {
        "min_size": min(2, DB_POOL_SIZE),
        "max_size": DB_POOL_SIZE,
        "timeout": DB_CONNECT_TIMEOUT,
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# After a Redis restart every pooled connection is dead, and redis-py does not retry by default: the
# first command on each failed (a websocket handshake answered 500, a login or a memory event lost).
# Reconnect and retry instead, for up to ~10 s (0.1, 0.2, ... capped at 2 s), on connection errors only:
# a timeout means a hung server, and retrying a blocking read would only wait longer.
REDIS_RETRIES = envint("REDIS_RETRIES", 8)
_redis_retry = {
    "retry": redis.retry.Retry(ExponentialBackoff(cap=2, base=0.1), REDIS_RETRIES, (redis.ConnectionError,)),
    "retry_on_error": [redis.ConnectionError],
}
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "OPTIONS": _redis_retry,
    }
}
CHANNEL_LAYERS = {
    "default": {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        # redis-py 8 defaults socket_timeout to 5 s, the same as channels-redis's BZPOPMIN wait, so an idle
        # socket's receive loop died with "Timeout reading"; give the read room beyond the 5 s block.
        "CONFIG": {
            "hosts": [
                {
                    "address": REDIS_URL,
                    "socket_timeout": 30,
                    "retry": redis.asyncio.retry.Retry(
                        ExponentialBackoff(cap=2, base=0.1), REDIS_RETRIES, (redis.ConnectionError,)
                    ),
                    "retry_on_error": [redis.ConnectionError],
                }
            ],
            "prefix": envstr("CHANNELS_PREFIX", "memoryapp"),
        },
    }
}

# --- Celery (the `CELERY_` namespace is read by memoryapp/celery.py) ----------------------------

CELERY_BROKER_URL = REDIS_URL
CELERY_RESULT_BACKEND = REDIS_URL
CELERY_TASK_ALWAYS_EAGER = envbool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Pipeline tasks ack late: a task whose worker died unacked goes back to the queue after this many seconds
# (kombu's Redis transport), and runs again on any worker. It must exceed the longest task and countdown.
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": envint("CELERY_VISIBILITY_TIMEOUT", 3600)}
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
# Graph syncs wait on the model several times per memory: their own queue keeps extraction prompt.
CELERY_TASK_ROUTES = {"tasks.graph_sync.*": {"queue": "graph"}}
FORGET_HOUR = envint("FORGET_HOUR", 3)  # nightly forgetting, in CELERY_TIMEZONE
# A worker's processes yield the CPU to the pages and the API: a long import with the worker at the web's
# priority doubled the API's p95 on 2 cores; niced it left it unchanged (docs/benchmarks/speed.md).
WORKER_NICENESS = envint("WORKER_NICENESS", 10)
# A chat left this long ends: its last turns are extracted and its last episode written (engine/chat/chat_end.py).
CHAT_IDLE_MINUTES = envint("CHAT_IDLE_MINUTES", 30)
# A chat whose last tab left ends (a temporary one is discarded) this long after, unless a tab shows it
# again: a reload, or a dropped connection that the page reconnects (conversations/consumers.py).
CHAT_TAB_GRACE_SECONDS = envfloat("CHAT_TAB_GRACE_SECONDS", 60)
# Replies one web process streams at once; each holds a thread that waits on the model (conversations/streaming.py).
CHAT_STREAM_THREADS = envint("CHAT_STREAM_THREADS", 100)
# Chat turns one web process works on at once (saving, recall, the prompt); more wait their turn.
CHAT_TURN_THREADS = envint("CHAT_TURN_THREADS", 4)
# A memory written without cues gets the situations of its nearest entries in the situation bank
# (engine/learned/situations.py), until a model writes its own; off: such a memory has no cues.
INFER_CUES = envbool("INFER_CUES", True)
# With a model, a chat turn is handed a list of memories to mark what it used (engine/chat/offer.py): at
# most this many, costing at most this many tokens (the relevance model's choice whole, the rest one line each).
CHAT_MODEL_MEMORY_LINES = envint("CHAT_MODEL_MEMORY_LINES", 50)
CHAT_MODEL_MEMORY_TOKENS = envint("CHAT_MODEL_MEMORY_TOKENS", 400)
if CHAT_MODEL_MEMORY_LINES < 1 or CHAT_MODEL_MEMORY_TOKENS < 20:
    raise ImproperlyConfigured("CHAT_MODEL_MEMORY_LINES must be 1 or more and CHAT_MODEL_MEMORY_TOKENS 20 or more")
# A deleted memory can be restored for this long, then the beat purges it for good (engine/memories/purge.py).
DELETED_RETENTION_DAYS = envint("DELETED_RETENTION_DAYS", 30)
if DELETED_RETENTION_DAYS < 0:
    raise ImproperlyConfigured(f"DELETED_RETENTION_DAYS must be 0 or more, not {DELETED_RETENTION_DAYS}")
# A chat's working memory (engine/chat_state): entries expire this long after they were last written, and a
# chat keeps at most this many, in at most this many bytes of JSON (a quarter of it per entry).
WORKING_MEMORY_TTL_HOURS = envint("WORKING_MEMORY_TTL_HOURS", 24)
WORKING_MEMORY_MAX_ENTRIES = envint("WORKING_MEMORY_MAX_ENTRIES", 24)
WORKING_MEMORY_MAX_BYTES = envint("WORKING_MEMORY_MAX_BYTES", 8192)
if WORKING_MEMORY_TTL_HOURS < 1 or WORKING_MEMORY_MAX_ENTRIES < 1 or WORKING_MEMORY_MAX_BYTES < 256:
    raise ImproperlyConfigured(
        "WORKING_MEMORY_TTL_HOURS and WORKING_MEMORY_MAX_ENTRIES must be 1 or more, WORKING_MEMORY_MAX_BYTES 256 or more"
    )
# What a program read (an OAuth app or a token, through the API or MCP) stays on the memory's history and the
# app's log this long; the beat drops older read records nightly (engine/recall/access.py).
ACCESS_RECORD_DAYS = envint("ACCESS_RECORD_DAYS", 90)
if ACCESS_RECORD_DAYS < 1:
    raise ImproperlyConfigured(f"ACCESS_RECORD_DAYS must be 1 or more, not {ACCESS_RECORD_DAYS}")
# The beat schedule (docs/pipeline.md); task names are strings so settings import no tasks.
CELERY_BEAT_SCHEDULE = {
    "flush-access": {"task": "tasks.access.flush_access", "schedule": 60.0},
    "graph-drain-pending": {"task": "tasks.graph_sync.drain_pending", "schedule": 300.0},
    "consolidate-due": {"task": "tasks.consolidation.consolidate_due", "schedule": 300.0},
    "extraction-requeue-stalled": {"task": "tasks.extraction.requeue_stalled", "schedule": 600.0},
    "history-imports-sweep": {"task": "tasks.learning.sweep_history_imports", "schedule": 600.0},
    "purge-temporary": {"task": "tasks.maintenance.purge_temporary", "schedule": 3600.0},
    "purge-deleted": {"task": "tasks.maintenance.purge_deleted", "schedule": 3600.0},
    "clear-oauth-tokens": {
        "task": "tasks.maintenance.clear_oauth_tokens",
        "schedule": crontab(minute=15, hour=FORGET_HOUR),
    },
    "drop-old-read-records": {
        "task": "tasks.access.drop_old_read_records",
        "schedule": crontab(minute=20, hour=FORGET_HOUR),
    },
    "end-idle-chats": {"task": "tasks.chat_end.end_idle_chats", "schedule": 300.0},
    "cues-pending": {"task": "tasks.cues.queue_cues", "schedule": 300.0},
    "forget-nightly": {"task": "tasks.forgetting.forget_all", "schedule": crontab(minute=0, hour=FORGET_HOUR)},
    "review-nightly": {"task": "tasks.review.review_all", "schedule": crontab(minute=30, hour=FORGET_HOUR)},
}

# --- Models -----------------------------------------------------------------------------------

OPENAI_BASE_URL = envstr("OPENAI_BASE_URL")
OPENAI_API_KEY = envsecret("OPENAI_API_KEY")
LLM_MODEL = envstr("LLM_MODEL", "gpt-4o-mini")
LLM_TIMEOUT_SECONDS = envfloat("LLM_TIMEOUT_SECONDS", 30.0)
EMBEDDING_PROVIDER = envstr("EMBEDDING_PROVIDER", "local")
if EMBEDDING_PROVIDER not in ("local", "openai"):
    raise ImproperlyConfigured(f"EMBEDDING_PROVIDER must be 'local' or 'openai', not {EMBEDDING_PROVIDER!r}")
EMBEDDING_MODEL = envstr("EMBEDDING_MODEL", embedding_catalog.DEFAULT_MODEL)
EMBEDDING_DIM = envint("EMBEDDING_DIM", embedding_catalog.default_dimension(EMBEDDING_MODEL))
EMBEDDING_THREADS = envint("EMBEDDING_THREADS", 1)  # torch threads per process for the local model; 0: torch's default
EMBEDDING_BASE_URL = envstr("EMBEDDING_BASE_URL") or OPENAI_BASE_URL
# The learned no-model defaults' weights (memoryapp/engine/learned/model.py): the shipped folder, or one
# that `python -m bench.train --out DIR` wrote for another embedder.
LEARNED_WEIGHTS_DIR = Path(
    envstr("LEARNED_WEIGHTS_DIR", str(BASE_DIR / "memoryapp" / "engine" / "learned" / "weights"))
).resolve()
if not LEARNED_WEIGHTS_DIR.is_dir():
    raise ImproperlyConfigured(
        f"LEARNED_WEIGHTS_DIR must be a folder of trained weights, not {str(LEARNED_WEIGHTS_DIR)!r}"
    )

ZEP_API_URL = envstr("ZEP_API_URL")
ZEP_API_KEY = envsecret("ZEP_API_KEY")
GRAPH_BACKEND = envstr("GRAPH_BACKEND", "zep" if ZEP_API_URL else "graphiti")  # checked by memoryapp.graph.conf
GRAPH_NAMESPACE = envstr("GRAPH_NAMESPACE", "memoryapp")
GRAPH_SYNC_TIMEOUT_SECONDS = envfloat("GRAPH_SYNC_TIMEOUT_SECONDS", 300.0)
GRAPH_TIMEOUT_SECONDS = envfloat("GRAPH_TIMEOUT_SECONDS", 30.0)
GRAPH_SYNC_BATCH = envint("GRAPH_SYNC_BATCH", 200)  # memories of one user per rule-facts write
GRAPH_LLM_STRUCTURED_OUTPUT = envstr("GRAPH_LLM_STRUCTURED_OUTPUT", "json_schema")
GRAPH_EXTRACTION = envstr("GRAPH_EXTRACTION", "rules")  # rules: no model; model: graphiti's own extraction
GRAPH_RECALL = envstr("GRAPH_RECALL", "auto")  # auto: recall asks the graph when a model built it; on; off

API_WRITES_PER_MINUTE = envint("API_WRITES_PER_MINUTE", 120)
# Room for the largest import the API takes (5,000 rows of up to 2,000 characters); bigger bodies get a 413.
DATA_UPLOAD_MAX_MEMORY_SIZE = 16 * 2**20
LOGIN_FAILURES_PER_15_MINUTES = envint("LOGIN_FAILURES_PER_15_MINUTES", 10)

# --- Auth, i18n, static -----------------------------------------------------------------------

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Who may open an account once the install has its first (which administers it): nobody but the
# administrator (`closed`), anyone (`open`), or anyone whose account an administrator then approves.
SIGNUP = envchoice("SIGNUP", ["closed", "open", "approval"], "closed")
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "login"

# --- OAuth 2.1 for remote MCP clients (memoryapp/oauth; docs/mcp.md, docs/security.md) -------------

# The address people reach the app at (https://memory.example.com). Behind a proxy that rewrites the Host,
# it is the issuer the authorization server names and the resource /mcp tokens are bound to; unset, both
# are read from each request (scheme and Host), which is right when the app sees the address it is called by.
PUBLIC_URL = (envstr("PUBLIC_URL", "") or "").rstrip("/")
if PUBLIC_URL and not re.fullmatch(r"https?://[A-Za-z0-9.\-\[\]:]+", PUBLIC_URL):
    raise ImproperlyConfigured(
        f"PUBLIC_URL must be the app's origin, such as https://memory.example.com (no path), not {PUBLIC_URL!r}"
    )
OAUTH_REGISTRATIONS_PER_HOUR = envint("OAUTH_REGISTRATIONS_PER_HOUR", 20)  # per client address
OAUTH_TOKEN_REQUESTS_PER_MINUTE = envint("OAUTH_TOKEN_REQUESTS_PER_MINUTE", 60)  # per address, /token and consents
OAUTH2_PROVIDER = {
    "SCOPES": {
        "memories:read": "Search and read your memories",
        "memories:write": "Add, change and delete your memories",
    },
    "DEFAULT_SCOPES": ["memories:read", "memories:write"],
    "PKCE_REQUIRED": True,
    "AUTHORIZATION_CODE_EXPIRE_SECONDS": 60,
    "ACCESS_TOKEN_EXPIRE_SECONDS": 3600,
    "REFRESH_TOKEN_EXPIRE_SECONDS": 30 * 24 * 3600,
    "ROTATE_REFRESH_TOKEN": True,
    "REFRESH_TOKEN_REUSE_PROTECTION": True,  # a refresh token used twice revokes the whole family
    # RFC 9700, the OAuth security best practice: S256 only, no implicit or password grant, tokens stored
    # as sha256, the issuer in the authorization response, no token in a query string.
    "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
    "COMPLIANT_BCP_RFC9700_TOKEN_STORAGE": True,
    "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": True,
    "COMPLIANT_BCP_RFC9700_IMPLICIT_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,
    "COMPLIANT_BCP_RFC9700_ACCESS_TOKEN_TRANSPORT": True,
    "COMPLIANT_BCP_RFC9700_REFRESH_TOKEN": True,
    "COMPLIANT_BCP_RFC9700_REDIRECT_URI_MATCHING": True,
    "COMPLIANT_BCP_RFC9700_PKCE_REQUIRED": True,
    # Open registration (RFC 7591), as Claude.ai and ChatGPT expect; memoryapp/oauth/registration.py
    # takes authorization-code clients only, and throttles it per address.
    "DCR_ENABLED": True,
    "DCR_REGISTRATION_PERMISSION_CLASSES": ("oauth2_provider.dcr.AllowAllDCRPermission",),
    "OAUTH2_RESPONSE_TYPES_SUPPORTED": ["code"],
    "OAUTH2_GRANT_TYPES_SUPPORTED": ["authorization_code", "refresh_token"],
    "OAUTH2_TOKEN_ENDPOINT_AUTH_METHODS_SUPPORTED": ["none", "client_secret_basic", "client_secret_post"],
    "OAUTH2_PROTECTED_RESOURCE_NAME": "memoryapp",
    "OIDC_ISS_ENDPOINT": PUBLIC_URL,
}
# oauth2_provider.W008 warns that http redirect URIs are allowed: registration takes http only for a
# loopback address (RFC 8252, native apps such as Claude Code), https for anything else.
SILENCED_SYSTEM_CHECKS = ["oauth2_provider.W008"]

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = envstr("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [
    BASE_DIR / "static",
    # Front-end libraries from npm (package-lock.json), installed by scripts/build-static.sh (which
    # scripts/bootstrap.sh and the Dockerfile both run).
    ("vendor/htmx", BASE_DIR / "node_modules" / "htmx.org" / "dist"),
    ("vendor/htmx-ext-ws", BASE_DIR / "node_modules" / "htmx-ext-ws" / "dist"),
    # The memory graph page's drawing (canvas; no eval, no worker: the CSP stands as it is).
    ("vendor/cytoscape", BASE_DIR / "node_modules" / "cytoscape" / "dist"),
]
# collectstatic's output. The image collects at build time into /app/staticfiles (its STATIC_ROOT), out of
# the var/ volume, which would hide it and keep a stale copy across upgrades.
STATIC_ROOT = Path(envstr("STATIC_ROOT", str(VAR_DIR / "staticfiles"))).resolve()
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
WHITENOISE_USE_FINDERS = True  # serve from the app folders without a collectstatic step

# --- Security (production turns these on through the environment; see compose.yaml) ---------

SESSION_COOKIE_SECURE = envbool("SECURE_COOKIES", False)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
SECURE_SSL_REDIRECT = envbool("SECURE_SSL_REDIRECT", False)
SECURE_HSTS_SECONDS = envint("SECURE_HSTS_SECONDS", 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = envbool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = envbool("SECURE_HSTS_PRELOAD", False)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# Scripts only from our own static files: an injected <script> or inline handler never runs.
# Inline styles stay allowed (htmx adds its indicator styles; the Swagger UI sets style attributes).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF, UNSAFE_INLINE],
        "img-src": [SELF, "data:"],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}
if envbool("TRUST_X_FORWARDED_PROTO", False):  # only behind a proxy that sets it
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# The healthcheck must answer over plain HTTP inside the compose network.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": envstr("LOG_LEVEL", "INFO")},
    # The pool warns at each failed try of its own; the request that needed the connection fails with one
    # clear error (DB_CONNECT_TIMEOUT later), which is what gets reported.
    "loggers": {"django.db.backends": {"level": "WARNING"}, "psycopg.pool": {"level": "ERROR"}},
}
