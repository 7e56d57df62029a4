"""A raw WebSocket client of a Clearance hub (websocket-client==1.9.2) that prints, one JSON line
each, the watchlist events and subscription counts it receives; its sign-in's user_data is signed
by the official Pusher server library (pusher==3.3.4)'s authenticate_user
(Tests/ClearanceServerTests/ServeWatchlistAndCountTests.swift).

Usage: hub_watch.py HOST PORT APP_ID KEY SECRET USER_ID WATCHLIST CHANNEL SECONDS
  USER_ID: sign in as this user ("-": do not sign in); WATCHLIST: comma-separated user ids
  ("-": none); CHANNEL: a channel to subscribe to ("-": none; private- and presence- channels are
  signed with the library's authenticate).

Prints {"ready": true} once signed in and subscribed, then {"watchlist": [events]} for each
pusher_internal:watchlist_events and {"count": N, "channel": C} for each
pusher_internal:subscription_count, and {"error": data} for a pusher:error, until SECONDS pass.
"""
import json
import sys
import time

import pusher
import websocket


def say(value):
    print(json.dumps(value, sort_keys=True), flush=True)


def main() -> int:
    host, port, app_id, key, secret, user_id, watchlist, channel, seconds = sys.argv[1:10]
    client = pusher.Pusher(app_id=app_id, key=key, secret=secret, host=host, port=int(port), ssl=False)
    ws = websocket.create_connection(f"ws://{host}:{port}/app/{key}?protocol=7&client=python", timeout=1)
    socket_id = json.loads(json.loads(ws.recv())["data"])["socket_id"]
    waiting = set()
    if user_id != "-":
        user = {"id": user_id}
        if watchlist != "-":
            user["watchlist"] = watchlist.split(",")
        ws.send(json.dumps({"event": "pusher:signin", "data": client.authenticate_user(socket_id, user)}))
        waiting.add("pusher:signin_success")
    if channel != "-":
        data = {"channel": channel}
        if channel.startswith("presence-"):
            data.update(client.authenticate(channel=channel, socket_id=socket_id, custom_data={"user_id": f"py-{socket_id}"}))
        elif channel.startswith("private-"):
            data.update(client.authenticate(channel=channel, socket_id=socket_id))
        ws.send(json.dumps({"event": "pusher:subscribe", "data": data}))
        waiting.add("pusher_internal:subscription_succeeded")
    if not waiting:
        say({"ready": True})
    deadline = time.monotonic() + float(seconds)
    while time.monotonic() < deadline:
        try:
            frame = json.loads(ws.recv())
        except websocket.WebSocketTimeoutException:
            continue
        except websocket.WebSocketConnectionClosedException:
            say({"closed": True})
            return 0
        event = frame.get("event")
        data = frame.get("data")
        if isinstance(data, str):
            try:
                data = json.loads(data)
            except ValueError:
                pass
        if event in waiting:
            waiting.discard(event)
            if not waiting:
                say({"ready": True})
        if event == "pusher_internal:watchlist_events":
            say({"watchlist": data["events"]})
        elif event == "pusher_internal:subscription_count":
            say({"count": data["subscription_count"], "channel": frame.get("channel")})
        elif event == "pusher:error":
            say({"error": data})
    ws.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
