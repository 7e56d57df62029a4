"""A webhook receiver that checks every webhook with the official Pusher server library
(pusher==3.3.4, Pusher.validate_webhook), for the hub's webhook tests
(Tests/ClearanceServerTests/ServeWebhookTests.swift and the cluster's).

Usage: webhook_receiver.py KEY SECRET PORT FAILURES

Listens on 127.0.0.1:PORT (0: a free one) and prints "listening PORT". Each POST: the first
FAILURES are answered 500 ("refused N" printed); the next ones are checked with
validate_webhook(key, signature, body): a valid one prints "webhook <the body as JSON>" and is
answered 200; an invalid one prints "invalid <reason>" and is answered 401. Also prints the
Content-Type it saw when it is not application/json ("content-type <value>").
"""
import http.server
import json
import sys
import threading

import pusher


def main() -> int:
    key, secret, port, failures = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    client = pusher.Pusher(app_id="1", key=key, secret=secret)
    lock = threading.Lock()
    state = {"refused": 0}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 (the standard library's name)
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length).decode("utf-8")
            with lock:
                if state["refused"] < failures:
                    state["refused"] += 1
                    print(f"refused {state['refused']}", flush=True)
                    return self.answer(500)
            content_type = self.headers.get("Content-Type", "")
            if content_type != "application/json":
                print(f"content-type {content_type}", flush=True)
            checked = client.validate_webhook(
                key=self.headers.get("X-Pusher-Key", ""),
                signature=self.headers.get("X-Pusher-Signature", ""),
                body=body,
            )
            if checked is None:
                print("invalid validate_webhook refused it", flush=True)
                return self.answer(401)
            print("webhook " + json.dumps(checked, sort_keys=True), flush=True)
            return self.answer(200)

        def answer(self, status):
            self.send_response(status)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, format, *args):  # noqa: A002 (the standard library's name)
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    print(f"listening {server.server_address[1]}", flush=True)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
