"""A webhook receiver that checks every webhook with the official Pusher server library
(pusher==3.3.4, Pusher.validate_webhook), for the hub's webhook tests
(Tests/ClearanceServerTests/ServeWebhookTests.swift and the cluster's).

Usage: webhook_receiver.py KEY SECRET PORT FAILURES [MAX_BODY [STALLS [STATUS]]]

Listens on 127.0.0.1:PORT (0: a free one) and prints "listening PORT". Each POST: the first
STALLS (default 0) get a 200 head with Content-Length: 100 and then nothing, ever ("stalled N"
printed): a receiver that stalls after its headers. A body declared larger than MAX_BODY bytes
(0, the default: no limit) is answered 413 (its body read and dropped) ("too-large BYTES" printed), as
nginx and Clearance's own WebhookReceiver do above 1 MiB. The first FAILURES are answered STATUS (500 by default; 503 for a receiver down for a
while) ("refused N" printed); the next ones are checked with
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
    max_body = int(sys.argv[5]) if len(sys.argv) > 5 else 0
    stalls = int(sys.argv[6]) if len(sys.argv) > 6 else 0
    status = int(sys.argv[7]) if len(sys.argv) > 7 else 500
    client = pusher.Pusher(app_id="1", key=key, secret=secret)
    lock = threading.Lock()
    state = {"refused": 0, "stalled": 0}
    never = threading.Event()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 (the standard library's name)
            length = int(self.headers.get("Content-Length", "0"))
            with lock:
                stall = state["stalled"] < stalls
                if stall:
                    state["stalled"] += 1
                    print(f"stalled {state['stalled']}", flush=True)
            if stall:
                self.send_response(200)
                self.send_header("Content-Length", "100")
                self.end_headers()
                self.wfile.flush()
                never.wait()
                return None
            if max_body and length > max_body:
                # Read (and drop) the body first, as nginx's lingering close does, so that the
                # sender reads the 413 rather than a reset connection.
                self.rfile.read(length)
                print(f"too-large {length}", flush=True)
                return self.answer(413)
            body = self.rfile.read(length).decode("utf-8")
            with lock:
                if state["refused"] < failures:
                    state["refused"] += 1
                    print(f"refused {state['refused']}", flush=True)
                    return self.answer(status)
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
