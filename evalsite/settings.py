"""EvalSite settings, read from the environment.

Every value comes through one of the small ``env_*`` helpers below, which raise
``ImproperlyConfigured`` with the variable's name when a value is malformed, so a
bad deployment fails at start-up rather than at the first request.
"""

from __future__ import annotations

import ipaddress
import os
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import dj_database_url
import django_stubs_ext
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent

# Lets classes such as ModelForm[Rating] be subscripted at run time, as the type checker reads them.
django_stubs_ext.monkeypatch()

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be one of 1/0, true/false, yes/no; got {raw!r}")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer; got {raw!r}") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}; got {value}")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def database_from_url(
    url: str, conn_max_age: int, pool: tuple[int, int] = (2, 10)
) -> dict[str, Any]:
    """Turn ``DATABASE_URL`` into Django's DATABASES entry.

    SQLite gets WAL, IMMEDIATE transactions and a long busy timeout, so that
    concurrent writers (several WebSocket handlers, an import job) queue for the
    write lock instead of failing with "database is locked"; its connections persist
    for ``conn_max_age`` seconds, since opening one costs more than a query.

    PostgreSQL gets psycopg's connection pool of ``pool`` = (min, max) connections per
    process and no persistent connections: under ASGI every request runs in a thread of
    its own, and a connection kept per thread is never reused, so they pile up until
    the server runs out ("too many clients already"). From the pool, a request borrows
    a connection and gives it back when it finishes.
    """
    scheme = urlsplit(url).scheme
    if scheme not in {"sqlite", "postgres", "postgresql", "pgsql"}:
        raise ImproperlyConfigured(
            f"DATABASE_URL must start with sqlite:// or postgres://; got {url!r}"
        )
    try:
        config: dict[str, Any] = dict(dj_database_url.parse(url, conn_max_age=conn_max_age))
    except ValueError as exc:
        raise ImproperlyConfigured(f"DATABASE_URL is not a valid URL: {exc}") from None
    if config["ENGINE"] == "django.db.backends.sqlite3":
        name = str(config.get("NAME") or "")
        if not name or name == ":memory:":
            raise ImproperlyConfigured(
                "DATABASE_URL must name a SQLite file, e.g. sqlite:///db.sqlite3"
            )
        if not Path(name).is_absolute():
            config["NAME"] = str(BASE_DIR / name)
        # Tests get a file too, so that daphne processes and worker processes
        # started by a test can share its database; one per test process.
        config["TEST"] = {
            "NAME": str(Path(tempfile.gettempdir()) / f"evalsite-test-{os.getpid()}.sqlite3")
        }
        config["OPTIONS"] = {
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": (
                "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=20000;"
            ),
        }
    else:
        pool_min, pool_max = pool
        config["CONN_MAX_AGE"] = 0
        config["CONN_HEALTH_CHECKS"] = False
        config["OPTIONS"] = {
            **config.get("OPTIONS", {}),
            "pool": {"min_size": pool_min, "max_size": pool_max, "timeout": 30},
        }
        config.setdefault("TEST", {})
    return config


DEBUG = env_bool("DEBUG", False)

SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off (or set DEBUG=1).")
    SECRET_KEY = "insecure-development-key-only-for-DEBUG-1"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    "django_tasks",
    "django_tasks_db",
    "evalsite",
    "liveeval",
    "annotation",
    "intent",
    "fidelity",
]

MIDDLEWARE = [
    "evalsite.security_headers.security_headers",
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "evalsite.interface_language.InterfaceLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "evalsite.archive.ArchivedCampaignMiddleware",
]

ROOT_URLCONF = "evalsite.urls"
ASGI_APPLICATION = "evalsite.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
                "evalsite.roles.roles_context",
            ],
        },
    },
]

# Persistent connections on SQLite only; PostgreSQL borrows from a pool of this size per process.
CONN_MAX_AGE = env_int("CONN_MAX_AGE", 600, minimum=1)
DB_POOL_MIN = env_int("EVALSITE_DB_POOL_MIN", 2, minimum=0)
DB_POOL_MAX = env_int("EVALSITE_DB_POOL_MAX", 10, minimum=1)
if DB_POOL_MIN > DB_POOL_MAX:
    raise ImproperlyConfigured(
        f"EVALSITE_DB_POOL_MIN ({DB_POOL_MIN}) must not exceed EVALSITE_DB_POOL_MAX ({DB_POOL_MAX})"
    )
DATABASE_URL = env_str("DATABASE_URL", "sqlite:///db.sqlite3")
DATABASES = {"default": database_from_url(DATABASE_URL, CONN_MAX_AGE, (DB_POOL_MIN, DB_POOL_MAX))}

REDIS_URL = env_str("REDIS_URL")
if REDIS_URL:
    if urlsplit(REDIS_URL).scheme not in {"redis", "rediss", "unix"}:
        raise ImproperlyConfigured(f"REDIS_URL must start with redis://; got {REDIS_URL!r}")
    # "pubsub": Redis publish/subscribe. A group message is one PUBLISH, pushed to the processes
    # that listen; a frame for a tab that is not connected is dropped (it reloads the history).
    # "lists": channels_redis's list layer, which keeps a message up to 30 s for a consumer that
    # is away, at four Redis round trips to send and four to receive, one receive at a time per
    # process (docs/deployment.md).
    CHANNEL_LAYER = env_str("EVALSITE_CHANNEL_LAYER", "pubsub")
    # Redis's publish/subscribe ignores the database number, so two instances on one Redis
    # server would hear each other's groups: every channel, group and cache key is named
    # under this instance's prefix, by default its database number on that server.
    REDIS_DB = urlsplit(REDIS_URL).path.strip("/") or "0"
    INSTANCE_PREFIX = env_str("EVALSITE_INSTANCE_PREFIX", f"evalsite.{REDIS_DB}")
    if CHANNEL_LAYER == "pubsub":
        CHANNEL_LAYERS = {
            "default": {
                "BACKEND": "evalsite.channel_layer.ResubscribingPubSubLayer",
                "CONFIG": {"hosts": [REDIS_URL], "prefix": INSTANCE_PREFIX},
            }
        }
    elif CHANNEL_LAYER == "lists":
        CHANNEL_LAYERS = {
            "default": {
                "BACKEND": "channels_redis.core.RedisChannelLayer",
                "CONFIG": {
                    "hosts": [REDIS_URL],
                    "capacity": 1500,
                    "expiry": 30,
                    "prefix": INSTANCE_PREFIX,
                },
            }
        }
    else:
        raise ImproperlyConfigured(
            f"EVALSITE_CHANNEL_LAYER must be 'pubsub' or 'lists'; got {CHANNEL_LAYER!r}"
        )
    # Rate limits (evalsite/rate_limits.py) count in the cache: shared by every process here.
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": INSTANCE_PREFIX,
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Background jobs (docs/jobs.md). "worker": queued in the database, run by `manage.py job_worker`
# processes on any machine. "thread": run in a thread of the process that starts them (tests, a
# single process without workers).
JOB_RUNNER = env_str("JOB_RUNNER", "worker")
if JOB_RUNNER not in {"worker", "thread"}:
    raise ImproperlyConfigured(f"JOB_RUNNER must be 'worker' or 'thread'; got {JOB_RUNNER!r}")
TASKS = {
    "default": {
        "BACKEND": "django_tasks_db.DatabaseBackend"
        if JOB_RUNNER == "worker"
        else "evalsite.job_threads.ThreadBackend"
    }
}
# How many parts a split job (an LLM scoring or simulation run) is cut into, so that several
# workers share it; how often each worker looks for stopped work; when a heartbeat is stale.
JOB_PARTS = env_int("JOB_PARTS", 4, minimum=1)
JOB_REAP_SECONDS = float(env_int("JOB_REAP_MILLISECONDS", 5000, minimum=50)) / 1000
JOB_STALE_SECONDS = env_int("JOB_STALE_SECONDS", 30, minimum=1)

# Sign-ins give their pooled database connection back while the password hashes.
AUTHENTICATION_BACKENDS = ["evalsite.sign_in_backend.PooledModelBackend"]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en"
LANGUAGES = [("en", _("English")), ("zh-hans", _("简体中文"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = env_str("TIME_ZONE", "Asia/Shanghai")
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(BASE_DIR / "staticfiles")))
STATICFILES_DIRS = [BASE_DIR / "static"]

EMAIL_HOST = env_str("EMAIL_HOST")
if EMAIL_HOST:
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_PORT = env_int("EMAIL_PORT", 587, minimum=1)
    EMAIL_HOST_USER = env_str("EMAIL_HOST_USER")
    EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD")
    EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
else:
    EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "evalsite@localhost")

if not DEBUG:
    SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", True)
    CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", True)
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 3600, minimum=0)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
    # Load balancers check health over plain HTTP, without following a redirect.
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]

# X-Forwarded-Proto is trusted only when a proxy that sets it (and strips the client's) is
# configured to: otherwise anyone could claim HTTPS.
if env_bool("TRUST_X_FORWARDED_PROTO", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# The admin's address; kept off the well-known /admin/ that scanners try first.
ADMIN_PATH = env_str("EVALSITE_ADMIN_PATH", "site-admin/").strip("/") + "/"
if ADMIN_PATH == "/":
    raise ImproperlyConfigured("EVALSITE_ADMIN_PATH must not be empty; e.g. site-admin")

# People one CSV file may add (evalsite/bulk_people.py); a larger file is refused, unread beyond.
PEOPLE_CSV_MAX_ROWS = env_int("EVALSITE_PEOPLE_CSV_MAX_ROWS", 5000, minimum=1)

# Named LLM credentials (evalsite/llm/credentials.py): name:ENVVAR@base_url, comma-separated.
LLM_KEYS = env_str("EVALSITE_LLM_KEYS")
# Hosts that systems and LLM endpoints may be at, as in ALLOWED_HOSTS; empty allows every host.
ENDPOINT_HOSTS = env_list("EVALSITE_ENDPOINT_HOSTS", [])
# Networks that participants' endpoints (intent teams') may be on although they are not public
# (loopback, private, link-local, metadata), as CIDR blocks, e.g. 127.0.0.1/32 for a team server
# on this host; empty refuses them all (evalsite/endpoint_addresses.py).
ENDPOINT_PRIVATE_NETWORKS = env_list("EVALSITE_ENDPOINT_PRIVATE_NETWORKS", [])
for _network in ENDPOINT_PRIVATE_NETWORKS:
    try:
        ipaddress.ip_network(_network, strict=False)
    except ValueError:
        raise ImproperlyConfigured(
            f"EVALSITE_ENDPOINT_PRIVATE_NETWORKS: {_network!r} is not a network such as 10.0.0.0/8"
        ) from None

# Abuse limits of the booking API: active bookings per conversation, and calls per token
# per minute (answered 429 beyond it).
MAX_ACTIVE_BOOKINGS = env_int("EVALSITE_MAX_ACTIVE_BOOKINGS", 10, minimum=1)
BOOKING_API_CALLS_PER_MINUTE = env_int("EVALSITE_BOOKING_API_CALLS_PER_MINUTE", 120, minimum=1)
# Calls a minute one address may make with tokens no conversation holds (guessing).
BOOKING_API_BAD_TOKENS_PER_MINUTE = env_int(
    "EVALSITE_BOOKING_API_BAD_TOKENS_PER_MINUTE", 30, minimum=1
)

# The live chat's bounds in each server process (liveeval/overload.py): judges' messages
# answered at once by outside and by built-in systems, and messages waiting unstored for a
# slot; past both, a message is stored and its judge told that the system is busy and the
# message will be answered.
LIVE_REPLIES_IN_PROGRESS = env_int("EVALSITE_LIVE_REPLIES_IN_PROGRESS", 64, minimum=1)
LIVE_BUILTIN_REPLIES_IN_PROGRESS = env_int(
    "EVALSITE_LIVE_BUILTIN_REPLIES_IN_PROGRESS", 4, minimum=1
)
LIVE_MESSAGES_WAITING = env_int("EVALSITE_LIVE_MESSAGES_WAITING", 32, minimum=0)

# Import limits (annotation/imports/limits.py): one upload, and one transcript within a file.
IMPORT_MAX_UPLOAD_BYTES = env_int("EVALSITE_IMPORT_MAX_UPLOAD_MB", 1024, minimum=1) * 1024 * 1024
IMPORT_MAX_TRANSCRIPT_BYTES = env_int("EVALSITE_IMPORT_MAX_TRANSCRIPT_KB", 2048, minimum=1) * 1024
# Files a page reads whole: the people CSV, intent datasets and submissions
# (evalsite/upload_limit.py).
FORM_UPLOAD_MAX_BYTES = env_int("EVALSITE_FORM_UPLOAD_MAX_MB", 20, minimum=1) * 1024 * 1024
FILE_UPLOAD_HANDLERS = [
    "django.core.files.uploadhandler.MemoryFileUploadHandler",
    "evalsite.upload_limit.LimitedUploadHandler",
]

# Sign-in and reset-mail throttling (evalsite/sign_in.py).
LOGIN_FAILURES_PER_ACCOUNT = env_int("EVALSITE_LOGIN_FAILURES_PER_ACCOUNT", 5, minimum=1)
LOGIN_FAILURES_PER_ADDRESS = env_int("EVALSITE_LOGIN_FAILURES_PER_ADDRESS", 30, minimum=1)
LOGIN_FAILURE_WINDOW = env_int("EVALSITE_LOGIN_FAILURE_WINDOW", 900, minimum=1)
RESET_MAILS_PER_EMAIL = env_int("EVALSITE_RESET_MAILS_PER_EMAIL", 3, minimum=1)
RESET_MAILS_PER_ADDRESS = env_int("EVALSITE_RESET_MAILS_PER_ADDRESS", 10, minimum=1)

LOG_LEVEL = env_str("LOG_LEVEL", "INFO")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"forbidden_on_one_line": {"()": "evalsite.log_records.ForbiddenOnOneLine"}},
    "formatters": {"line": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "line",
            "filters": ["forbidden_on_one_line"],
        }
    },
    # One handler, on the root: every logger below propagates to it and has none of its own.
    "root": {"handlers": ["console"], "level": "WARNING"},
    "loggers": {
        "django": {"handlers": [], "level": "INFO", "propagate": True},
        "django.server": {"handlers": [], "level": "INFO", "propagate": True},
        "evalsite": {"level": LOG_LEVEL},
        "liveeval": {"level": LOG_LEVEL},
        "annotation": {"level": LOG_LEVEL},
    },
}
