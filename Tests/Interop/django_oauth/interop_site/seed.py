"""Seeds the interop server: one user and one application per grant, plus a resource-server
token that may call the introspection endpoint. Secrets are fresh on every run."""

import secrets
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_application_model


def seed():
    Application = get_application_model()
    AccessToken = get_access_token_model()
    User = get_user_model()

    password = secrets.token_urlsafe(16)
    user, _ = User.objects.get_or_create(username="alice")
    user.set_password(password)
    user.email = "alice@example.com"
    user.first_name, user.last_name = "Alice", "Interop"
    user.save()

    def app(client_id, name, client_type, grant, redirect_uris="", confidential_secret=True, **extra):
        secret = secrets.token_urlsafe(32) if confidential_secret else ""
        Application.objects.filter(client_id=client_id).delete()
        Application.objects.create(
            client_id=client_id,
            client_secret=secret,
            name=name,
            client_type=client_type,
            authorization_grant_type=grant,
            redirect_uris=redirect_uris,
            user=user,
            **extra,
        )
        return {"client_id": client_id, "client_secret": secret or None}

    clients = {
        # Confidential: resource owner password grant (+ refresh, revocation).
        "password": app("clearance-password", "Clearance password", Application.CLIENT_CONFIDENTIAL, Application.GRANT_PASSWORD),
        # Confidential: client credentials grant.
        "client_credentials": app(
            "clearance-service", "Clearance service", Application.CLIENT_CONFIDENTIAL, Application.GRANT_CLIENT_CREDENTIALS
        ),
        # Public native app: authorization code + PKCE, loopback redirect (any port, RFC 8252 §7.3).
        "authorization_code": app(
            "clearance-native",
            "Clearance native",
            Application.CLIENT_PUBLIC,
            Application.GRANT_AUTHORIZATION_CODE,
            redirect_uris="http://127.0.0.1/callback",
            confidential_secret=False,
        ),
        # Public native app signing in with OpenID Connect: RS256 ID tokens, no consent page
        # (skip_authorization), RP-initiated logout back to a loopback URI.
        "openid": app(
            "clearance-openid",
            "Clearance OpenID",
            Application.CLIENT_PUBLIC,
            Application.GRANT_AUTHORIZATION_CODE,
            redirect_uris="http://127.0.0.1/callback",
            confidential_secret=False,
            algorithm=Application.RS256_ALGORITHM,
            skip_authorization=True,
            post_logout_redirect_uris="http://127.0.0.1/signed-out",
        ),
        # Public device app: RFC 8628 device authorization grant.
        "device": app(
            "clearance-device", "Clearance device", Application.CLIENT_PUBLIC, Application.GRANT_DEVICE_CODE,
            confidential_secret=False,
        ),
    }
    resource_server = app(
        "clearance-resource-server", "Clearance resource server", Application.CLIENT_CONFIDENTIAL,
        Application.GRANT_CLIENT_CREDENTIALS,
    )
    introspection_token = secrets.token_urlsafe(32)
    AccessToken.objects.create(
        user=None,
        application=Application.objects.get(client_id=resource_server["client_id"]),
        token=introspection_token,
        scope="introspection",
        expires=timezone.now() + timedelta(days=1),
    )
    return {
        "users": {"alice": password},
        # The `sub` of alice's ID tokens: her primary key, as a string.
        "subjects": {"alice": str(user.pk)},
        "clients": clients,
        "resource_server": resource_server,
        "introspection_token": introspection_token,
    }
