"""Settings of the minimal django-oauth-toolkit server the Clearance OAuth2 interop tests talk to.

Test-only: DEBUG off, a throwaway secret, a fast password hasher, an sqlite database in the
directory named by CLEARANCE_DJANGO_DB_DIR (serve.py makes a temporary one when it is unset).
"""

import json
import os
import tempfile
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent

SECRET_KEY = "clearance-interop-only-not-a-secret"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "[::1]"]

# The URL the server is reachable at (serve.py sets it once the port is bound); used for the
# device verification URI, which RFC 8628 wants absolute.
PUBLIC_URL = os.environ.get("CLEARANCE_DJANGO_URL", "http://127.0.0.1:8000")

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "oauth2_provider",
    "interop_site",
]

MIDDLEWARE = [
    "django.middleware.common.CommonMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
]

ROOT_URLCONF = "interop_site.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
            ],
        },
    },
]

_db_dir = os.environ.get("CLEARANCE_DJANGO_DB_DIR") or tempfile.gettempdir()
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.path.join(_db_dir, "oauth.sqlite3"),
        # The server is threaded and the tests run in parallel: take the write lock up front
        # and wait for it rather than failing with "database is locked".
        "OPTIONS": {"timeout": 20, "transaction_mode": "IMMEDIATE"},
    }
}

# Test speed: every token request checks a hashed client secret, every login a password.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

LOGIN_URL = "/accounts/login/"
USE_TZ = True
TIME_ZONE = "UTC"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"stderr": {"class": "logging.StreamHandler"}},
    "loggers": {
        "django": {"handlers": ["stderr"], "level": "WARNING"},
        # Every refused token request (authorization_pending, invalid_grant) would log "Bad Request".
        "django.request": {"handlers": ["stderr"], "level": "ERROR", "propagate": False},
        "oauth2_provider": {"handlers": ["stderr"], "level": "WARNING"},
        "oauthlib": {"handlers": ["stderr"], "level": "WARNING"},
    },
}

OAUTH2_PROVIDER = {
    "SCOPES": {
        "read": "Read",
        "write": "Write",
        "introspection": "Introspect tokens",
        "openid": "OpenID Connect",
        "email": "Email address",
        "profile": "Name",
    },
    "DEFAULT_SCOPES": ["read"],
    "ACCESS_TOKEN_EXPIRE_SECONDS": 3600,
    "REFRESH_TOKEN_EXPIRE_SECONDS": 3600,
    # Refresh rotation: a used refresh token is revoked at once (no grace period).
    "ROTATE_REFRESH_TOKEN": True,
    "REFRESH_TOKEN_GRACE_PERIOD_SECONDS": 0,
    # PKCE for the authorization code grant (applies to every client; S256 only).
    "PKCE_REQUIRED": True,
    "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
    # The consent page every time (the tests post it).
    "REQUEST_APPROVAL_PROMPT": "force",
    # Loopback redirect URIs (RFC 8252 §7.3): DOT accepts any port for a registered
    # http://127.0.0.1/... URI, so the runtime port of Clearance's listener matches.
    "ALLOWED_REDIRECT_URI_SCHEMES": ["http", "https"],
    # Device authorization grant (RFC 8628), as DOT 3.x does it: the device-authorization/
    # endpoint, the device/ user-code page, and a 1 s polling interval to keep the test short.
    "OAUTH_DEVICE_VERIFICATION_URI": PUBLIC_URL + "/o/device/",
    "OAUTH_DEVICE_VERIFICATION_URI_COMPLETE": PUBLIC_URL + "/o/device/?user_code={user_code}",
    "DEVICE_FLOW_INTERVAL": 1,
    # The password grant is what the tests exercise: keep it allowed explicitly (DOT plans to
    # refuse it by default from 4.0 on, RFC 9700 §2.4).
    "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": False,
}

# OpenID Connect: RS256 ID tokens signed with the active key of the keys file serve.py keeps
# (CLEARANCE_OIDC_KEYS: {"active": PEM, "inactive": [PEM, ...]}); the inactive keys stay in the
# JWKS after a rotation. The issuer is pinned to the server's URL; RP-initiated logout is on,
# without its confirmation page.
_oidc_keys = {"active": "", "inactive": []}
if os.environ.get("CLEARANCE_OIDC_KEYS"):
    with open(os.environ["CLEARANCE_OIDC_KEYS"]) as keys_file:
        _oidc_keys = json.load(keys_file)
OAUTH2_PROVIDER.update(
    {
        "OIDC_ENABLED": bool(_oidc_keys["active"]),
        "OIDC_RSA_PRIVATE_KEY": _oidc_keys["active"],
        "OIDC_RSA_PRIVATE_KEYS_INACTIVE": _oidc_keys["inactive"],
        "OIDC_ISS_ENDPOINT": PUBLIC_URL + "/o",
        "OIDC_RP_INITIATED_LOGOUT_ENABLED": True,
        "OIDC_RP_INITIATED_LOGOUT_ALWAYS_PROMPT": False,
        "OAUTH2_VALIDATOR_CLASS": "interop_site.validators.InteropValidator",
    }
)

# A fresh database every run: create the tables straight from the models instead of replaying
# every migration (seconds saved on each start).
class _NoMigrations:
    def __contains__(self, item):
        return True

    def __getitem__(self, item):
        return None


MIGRATION_MODULES = _NoMigrations()
