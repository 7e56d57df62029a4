"""Floods one app of a Clearance hub from raw WebSockets (websocket-client==1.9.2), as an attacker
who knows only the app's public key would (Tests/ClearanceServerTests/ServeAppShareTests.swift).

Usage: hub_flood.py subscribe URL SOCKETS CHANNELS
         opens SOCKETS connections to URL, each sends CHANNELS public subscribes at once, then
         reads every answer; prints {"established": N, "succeeded": N, "refused": {status: N}}.
       hub_flood.py churn URL SOCKETS ROUNDS
         opens SOCKETS connections to URL; each in turn, ROUNDS times, subscribes to a channel of
         its own (waiting for the answer) and unsubscribes from it: a channel_occupied and a
         channel_vacated webhook each round; prints {"established": N, "subscribed": N}.
       hub_flood.py connect URL SOCKETS
         opens SOCKETS connections to URL and never authorizes them; prints
         {"established": N, "refused": {close code: N}}.
Then prints "holding" and keeps every established connection open (answering the hub's pings)
until it is killed, or for at most 600 s.
"""
import json
import sys
import time

import websocket


def first_frame(ws):
    """The hub's first frame: connection_established's socket id, or the refusal's code."""
    frame = json.loads(ws.recv())
    if frame["event"] == "pusher:connection_established":
        return json.loads(frame["data"])["socket_id"], None
    data = frame["data"] if isinstance(frame["data"], dict) else json.loads(frame["data"])
    return None, data.get("code")


def open_sockets(url, count):
    established, refused = [], {}
    for _ in range(count):
        ws = websocket.create_connection(url, timeout=120)
        socket_id, code = first_frame(ws)
        if socket_id is None:
            refused[str(code)] = refused.get(str(code), 0) + 1
            ws.close()
        else:
            established.append(ws)
    return established, refused


def subscribe(url, sockets, channels):
    """Each socket in turn sends its subscribes at once and reads their answers, so that no
    socket's answers wait behind the others' (the hub answers each socket in order)."""
    established, refused_sockets = open_sockets(url, sockets)
    succeeded, refused, closed = 0, {}, 0
    for index, ws in enumerate(established):
        ws.settimeout(120)
        for channel in range(channels):
            ws.send(json.dumps({"event": "pusher:subscribe", "data": {"channel": f"flood-{index}-{channel}"}}))
        answered = 0
        while answered < channels:
            text = ws.recv()
            if not text:  # the hub closed this socket: counted, and the next one goes on
                closed += 1
                break
            frame = json.loads(text)
            if frame["event"] == "pusher_internal:subscription_succeeded":
                succeeded += 1
                answered += 1
            elif frame["event"] == "pusher:subscription_error":
                data = frame["data"] if isinstance(frame["data"], dict) else json.loads(frame["data"])
                status = str(data.get("status"))
                refused[status] = refused.get(status, 0) + 1
                answered += 1
    print(json.dumps({
        "established": len(established), "refusedSockets": refused_sockets, "succeeded": succeeded, "refused": refused, "closed": closed,
    }), flush=True)
    return established


def churn(url, sockets, rounds):
    established, _ = open_sockets(url, sockets)
    subscribed = 0
    for index, ws in enumerate(established):
        ws.settimeout(120)
        for round_ in range(rounds):
            channel = f"churn-{index}-{round_}"
            ws.send(json.dumps({"event": "pusher:subscribe", "data": {"channel": channel}}))
            while True:
                frame = json.loads(ws.recv())
                if frame["event"] in ("pusher_internal:subscription_succeeded", "pusher:subscription_error"):
                    break
            if frame["event"] == "pusher_internal:subscription_succeeded":
                subscribed += 1
            ws.send(json.dumps({"event": "pusher:unsubscribe", "data": {"channel": channel}}))
    print(json.dumps({"established": len(established), "subscribed": subscribed}), flush=True)
    return established


def hold(sockets):
    print("holding", flush=True)
    deadline = time.monotonic() + 600
    for ws in sockets:
        ws.settimeout(0.05)
    while time.monotonic() < deadline:
        for ws in sockets:
            try:
                frame = ws.recv()
            except websocket.WebSocketTimeoutException:
                continue
            except Exception:  # noqa: BLE001 (a closed socket is simply left alone)
                continue
            if frame and '"pusher:ping"' in frame:
                ws.send(json.dumps({"event": "pusher:pong", "data": {}}))


def main() -> int:
    mode, url, sockets = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if mode == "subscribe":
        hold(subscribe(url, sockets, int(sys.argv[4])))
    elif mode == "churn":
        hold(churn(url, sockets, int(sys.argv[4])))
    elif mode == "connect":
        established, refused = open_sockets(url, sockets)
        print(json.dumps({"established": len(established), "refused": refused}), flush=True)
        hold(established)
    else:
        print(f"unknown mode {mode}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
