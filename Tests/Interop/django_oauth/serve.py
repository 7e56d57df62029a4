#!/usr/bin/env python3
"""Starts the django-oauth-toolkit server for Clearance's OAuth2 interop tests.

Binds 127.0.0.1 on a free port (or --port), migrates a fresh sqlite database (in
$CLEARANCE_DJANGO_DB_DIR, else a temporary directory removed at exit), seeds a user and one
application per grant, starts serving, and prints one JSON line:

  {"ready": true, "url": "http://127.0.0.1:PORT", "token_url": ..., "users": {...},
   "clients": {...}, "introspection_token": ..., "oidc": {"issuer": ..., "active_kid": ...}}

With --oidc, OpenID Connect is on: RS256 ID tokens signed with the active key of
<db dir>/oidc-keys.json (made when missing); --rotate-oidc-key first moves the active key to
OIDC_RSA_PRIVATE_KEYS_INACTIVE and makes a new active one. --reuse-database keeps the database
and seeded secrets of an earlier run in the same directory (a restart: tokens stay valid).

Exits when standard input closes, or on SIGTERM / SIGINT. Everything else goes to stderr.
"""

import argparse
import json
import os
import shutil
import signal
import socketserver
import sys
import tempfile
import threading
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # keep the source tree free of __pycache__


class ThreadingWSGIServer(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True
    allow_reuse_address = True


class QuietHandler(WSGIRequestHandler):
    verbose = False

    def log_message(self, format, *args):
        if self.verbose:
            sys.stderr.write("django-oauth: %s\n" % (format % args))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: any free port)")
    parser.add_argument("--verbose", action="store_true", help="log every request to stderr")
    parser.add_argument("--oidc", action="store_true", help="enable OpenID Connect (RS256 keys in <db dir>/oidc-keys.json)")
    parser.add_argument("--rotate-oidc-key", action="store_true", help="with --oidc: make a new active key, the old one inactive")
    parser.add_argument("--reuse-database", action="store_true", help="keep the database and seeded secrets of an earlier run")
    args = parser.parse_args()
    QuietHandler.verbose = args.verbose

    created_dir = None
    if not os.environ.get("CLEARANCE_DJANGO_DB_DIR"):
        created_dir = tempfile.mkdtemp(prefix="clearance-django-oauth-")
        os.environ["CLEARANCE_DJANGO_DB_DIR"] = created_dir
    db_dir = os.environ["CLEARANCE_DJANGO_DB_DIR"]
    if args.oidc:
        os.environ["CLEARANCE_OIDC_KEYS"] = oidc_keys(os.path.join(db_dir, "oidc-keys.json"), rotate=args.rotate_oidc_key)

    # Bind first (the device verification URI needs the port), load Django afterwards.
    application = {}

    def app(environ, start_response):
        return application["wsgi"](environ, start_response)

    server = make_server("127.0.0.1", args.port, app, server_class=ThreadingWSGIServer, handler_class=QuietHandler)
    url = "http://127.0.0.1:%d" % server.server_port
    os.environ["CLEARANCE_DJANGO_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "interop_site.settings")
    sys.path.insert(0, HERE)

    stopping = threading.Event()

    def stop(*_):
        if not stopping.is_set():
            stopping.set()
            threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    def watch_stdin():
        try:
            while sys.stdin.buffer.read(4096):
                pass
        except Exception:
            pass
        stop()

    threading.Thread(target=watch_stdin, daemon=True).start()

    try:
        import django
        from django.core.management import call_command
        from django.core.wsgi import get_wsgi_application

        django.setup()
        call_command("migrate", verbosity=0, interactive=False, run_syncdb=True)
        from interop_site.seed import seed

        seeded_path = os.path.join(db_dir, "seeded.json")
        if args.reuse_database and os.path.exists(seeded_path):
            with open(seeded_path) as seeded_file:
                seeded = json.load(seeded_file)
        else:
            seeded = seed()
            with open(seeded_path, "w") as seeded_file:
                json.dump(seeded, seeded_file)
        application["wsgi"] = get_wsgi_application()
        ready = {
            "ready": True,
            "url": url,
            "token_url": url + "/o/token/",
            "authorize_url": url + "/o/authorize/",
            "revocation_url": url + "/o/revoke_token/",
            "introspection_url": url + "/o/introspect/",
            "device_authorization_url": url + "/o/device-authorization/",
            "login_url": url + "/accounts/login/",
            "pid": os.getpid(),
        }
        ready.update(seeded)
        if args.oidc:
            from django.conf import settings
            from oauth2_provider.utils import jwk_from_pem

            ready["oidc"] = {
                "issuer": url + "/o",
                "discovery_url": url + "/o/.well-known/openid-configuration",
                "active_kid": jwk_from_pem(settings.OAUTH2_PROVIDER["OIDC_RSA_PRIVATE_KEY"]).thumbprint(),
                "inactive_kids": [jwk_from_pem(pem).thumbprint() for pem in settings.OAUTH2_PROVIDER["OIDC_RSA_PRIVATE_KEYS_INACTIVE"]],
            }
        if not stopping.is_set():
            sys.stdout.write(json.dumps(ready) + "\n")
            sys.stdout.flush()
            server.serve_forever(poll_interval=0.1)
    finally:
        server.server_close()
        if created_dir:
            shutil.rmtree(created_dir, ignore_errors=True)


def oidc_keys(path, rotate):
    """The keys file for settings.py ({"active": PEM, "inactive": [PEM, ...]}), made with a new
    RSA key when missing; with `rotate`, the active key moves to the inactive ones first."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    def new_key():
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        return key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ).decode()

    keys = None
    if os.path.exists(path):
        with open(path) as keys_file:
            keys = json.load(keys_file)
    if keys is None:
        keys = {"active": new_key(), "inactive": []}
    elif rotate:
        keys = {"active": new_key(), "inactive": [keys["active"]] + keys["inactive"]}
    with open(path, "w") as keys_file:
        json.dump(keys, keys_file)
    os.chmod(path, 0o600)
    return path


if __name__ == "__main__":
    main()
