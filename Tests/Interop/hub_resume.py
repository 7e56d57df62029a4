#!/usr/bin/env python3
"""Connection recovery against a running Clearance hub, as a client sees it on the wire: raw frames
with websocket-client==1.9.2, events triggered (and private channels signed) by the official Pusher
server library (pusher==3.3.4). (Tests/ClearanceServerTests/ServeConnectionRecoveryTests.swift)

Usage: hub_resume.py HOST PORT APP_ID KEY SECRET CHANNEL MISSED
  The app keeps a history of CHANNEL (a public channel) of more than MISSED + 2 events and fewer
  than MISSED + 62, and of private-CHANNEL.

Prints one JSON object: what each step saw. Every read has a timeout (stretched by
CLEARANCE_TEST_TIME_SCALE, as the Swift tests' waits are).
"""
import json
import os
import sys

import pusher
import websocket

try:
    SCALE = min(max(int(os.environ.get("CLEARANCE_TEST_TIME_SCALE", "1")), 1), 20)
except ValueError:
    SCALE = 1


def connect(host, port, key):
    ws = websocket.create_connection(f"ws://{host}:{port}/app/{key}?protocol=7&client=python", timeout=15 * SCALE)
    established = json.loads(ws.recv())
    return ws, json.loads(established["data"])["socket_id"]


def subscribe(ws, channel, resume=None, auth=None):
    data = {"channel": channel}
    if auth is not None:
        data.update(auth)
    if resume is not None:
        data["resume"] = resume
    ws.send(json.dumps({"event": "pusher:subscribe", "data": data}))
    while True:
        frame = json.loads(ws.recv())
        if frame.get("channel") == channel or frame.get("event", "").startswith("pusher:"):
            return frame


def position(frame):
    return {"stream": frame.get("stream"), "serial": frame.get("serial"), "recovered": frame.get("recovered", "absent")}


def main() -> int:
    host, port, app_id, key, secret, channel, missed = sys.argv[1:8]
    missed = int(missed)
    server = pusher.Pusher(app_id=app_id, key=key, secret=secret, host=host, port=int(port), ssl=False)
    report = {}

    # A first connection subscribes and gets one event live, then drops.
    first, _ = connect(host, port, key)
    succeeded = subscribe(first, channel)
    report["first"] = position(succeeded)
    report["first_trigger"] = server.trigger(channel, "e", "1")
    live = json.loads(first.recv())
    report["first_event"] = {"serial": live.get("serial"), "stream": live.get("stream"), "data": live.get("data")}
    first.close()

    # Missed while away; the official library's trigger gets 200 and the serial.
    report["missed_triggers"] = [server.trigger(channel, "e", str(index)) for index in range(2, missed + 2)]

    # Back: resume from the last event seen.
    back, _ = connect(host, port, key)
    resumed = subscribe(back, channel, resume={"stream": live.get("stream"), "serial": live.get("serial")})
    report["resumed"] = position(resumed)
    replay = [json.loads(back.recv()) for _ in range(missed)]
    report["replayed"] = [{"serial": frame.get("serial"), "data": frame.get("data")} for frame in replay]
    server.trigger(channel, "e", "live")
    after = json.loads(back.recv())
    report["live"] = {"serial": after.get("serial"), "data": after.get("data")}
    back.close()

    # Not recoverable: another stream, ahead of the channel, and (after 60 more) beyond size.
    stream = live.get("stream")
    cases = {"another_stream": {"stream": "elsewhere-1", "serial": 1}, "ahead": {"stream": stream, "serial": 100000}}
    for name, resume in cases.items():
        ws, _ = connect(host, port, key)
        report[name] = position(subscribe(ws, channel, resume=resume))
        ws.send(json.dumps({"event": "pusher:ping", "data": {}}))
        report[name]["next"] = json.loads(ws.recv()).get("event")
        ws.close()
    server.trigger_batch([{"channel": channel, "name": "e", "data": str(index)} for index in range(6)])
    for _ in range(6):
        server.trigger_batch([{"channel": channel, "name": "e", "data": str(index)} for index in range(10)])
    ws, _ = connect(host, port, key)
    report["beyond_size"] = position(subscribe(ws, channel, resume={"stream": stream, "serial": live.get("serial")}))
    ws.send(json.dumps({"event": "pusher:ping", "data": {}}))
    report["beyond_size"]["next"] = json.loads(ws.recv()).get("event")
    ws.close()

    # A resume on a private channel with a bad signature is refused like any subscription.
    private = "private-" + channel
    server.trigger(private, "e", "secret")
    ws, socket_id = connect(host, port, key)
    good = server.authenticate(channel=private, socket_id=socket_id)
    refused = subscribe(ws, private, resume={"stream": stream, "serial": 0}, auth={"auth": good["auth"][:-4] + "0000"})
    report["bad_auth"] = {"event": refused.get("event")}
    ws.send(json.dumps({"event": "pusher:ping", "data": {}}))
    report["bad_auth"]["next"] = json.loads(ws.recv()).get("event")
    ws.close()

    print(json.dumps(report, sort_keys=True), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
