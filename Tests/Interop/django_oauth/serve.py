#!/usr/bin/env python3
"""Starts the django-oauth-toolkit server for Clearance's OAuth2 interop tests.

Binds 127.0.0.1 on a free port (or --port), migrates a fresh sqlite database (in
$CLEARANCE_DJANGO_DB_DIR, else a temporary directory removed at exit), seeds a user and one
application per grant, starts serving, and prints one JSON line:

  {"ready": true, "url": "http://127.0.0.1:PORT", "token_url": ..., "users": {...},
   "clients": {...}, "introspection_token": ...}

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
    args = parser.parse_args()
    QuietHandler.verbose = args.verbose

    created_dir = None
    if not os.environ.get("CLEARANCE_DJANGO_DB_DIR"):
        created_dir = tempfile.mkdtemp(prefix="clearance-django-oauth-")
        os.environ["CLEARANCE_DJANGO_DB_DIR"] = created_dir

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

        seeded = seed()
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
        if not stopping.is_set():
            sys.stdout.write(json.dumps(ready) + "\n")
            sys.stdout.flush()
            server.serve_forever(poll_interval=0.1)
    finally:
        server.server_close()
        if created_dir:
            shutil.rmtree(created_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
