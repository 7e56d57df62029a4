"""One raw WebSocket connection to a Clearance hub (websocket-client==1.9.2), authorized or not
with the official Pusher server library (pusher==3.3.4)
(Tests/ClearanceServerTests/ServeAuthorizedConnectionTests.swift).

Usage: hub_authorized_connection.py HOST PORT APP_ID KEY SECRET MODE WAIT_SECONDS
  MODE: idle (does nothing), signin (pusher:signin, user_data signed with authenticate_user),
        private (subscribes to private-python, signed with authorize_channel), public (subscribes
        to a public channel only).

Reads frames for WAIT_SECONDS and prints one JSON line: {"closed": true, "code": N, "reason": …,
"error": <the pusher:error frame's data>} when the hub closed the connection, else
{"closed": false, "events": [the events received]}.
"""
import json
import sys
import time

import pusher
import websocket


def main() -> int:
    host, port, app_id, key, secret, mode, wait = sys.argv[1:8]
    client = pusher.Pusher(app_id=app_id, key=key, secret=secret, host=host, port=int(port), ssl=False)
    ws = websocket.create_connection(f"ws://{host}:{port}/app/{key}?protocol=7&client=python", timeout=2)
    established = json.loads(ws.recv())
    socket_id = json.loads(established["data"])["socket_id"]
    if mode == "signin":
        auth = client.authenticate_user(socket_id, {"id": "python-user", "user_info": {"name": "Py"}})
        ws.send(json.dumps({"event": "pusher:signin", "data": auth}))
    elif mode == "private":
        auth = client.authenticate(channel="private-python", socket_id=socket_id)
        ws.send(json.dumps({"event": "pusher:subscribe", "data": {"channel": "private-python", **auth}}))
    elif mode == "public":
        ws.send(json.dumps({"event": "pusher:subscribe", "data": {"channel": "public-python"}}))
    events = []
    error = None
    deadline = time.monotonic() + float(wait)
    while time.monotonic() < deadline:
        try:
            opcode, data = ws.recv_data(control_frame=True)
        except websocket.WebSocketTimeoutException:
            continue
        except websocket.WebSocketConnectionClosedException:
            break
        if opcode == websocket.ABNF.OPCODE_CLOSE:
            code = int.from_bytes(data[:2], "big") if len(data) >= 2 else None
            print(json.dumps({"closed": True, "code": code, "reason": data[2:].decode("utf-8"), "error": error}, sort_keys=True))
            return 0
        if opcode == websocket.ABNF.OPCODE_TEXT:
            frame = json.loads(data)
            events.append(frame["event"])
            if frame["event"] == "pusher:error":
                error = frame["data"]
    print(json.dumps({"closed": False, "events": events}, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
