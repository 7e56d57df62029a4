#!/usr/bin/env python3
"""Connection recovery across the nodes of a Clearance cluster, as a client sees it on the wire:
raw frames with websocket-client==1.9.2, events triggered by the official Pusher server library
(pusher==3.3.4). (Tests/ClearanceServerPostgresTests/ServeClusterRecoveryTests.swift)

Usage (each step prints one JSON object; the test runs them around what it does to the nodes):
  hub_resume_nodes.py subscribe HOST PORT APP_ID KEY SECRET CHANNEL
      subscribes on that node, triggers one event through its HTTP API, reads it live, leaves:
      {"subscribed": {...}, "event": {"stream", "serial", "data"}}
  hub_resume_nodes.py trigger HOST PORT APP_ID KEY SECRET CHANNEL FIRST COUNT
      triggers COUNT events (data FIRST, FIRST+1, ...) through that node: {"triggers": [answer, ...]}
  hub_resume_nodes.py answer HOST PORT APP_ID KEY SECRET CHANNEL STREAM SERIAL
      subscribes on that node resuming from STREAM/SERIAL and leaves: {"resumed": {...}}
  hub_resume_nodes.py resume HOST PORT APP_ID KEY SECRET CHANNEL STREAM SERIAL COUNT
      subscribes on that node resuming from STREAM/SERIAL, reads COUNT replayed events, then one
      event triggered through that node: {"resumed": {...}, "replayed": [...], "live": {...}}

Every read has a timeout (stretched by CLEARANCE_TEST_TIME_SCALE, as the Swift tests' waits are).
"""
import json
import sys

import pusher

# The frames' helpers of the one-node script (this folder is first on sys.path).
from hub_resume import connect, position, subscribe


def answer(frame):
    return {**position(frame), "event": frame.get("event")}


def event(frame):
    return {"event": frame.get("event"), "stream": frame.get("stream"), "serial": frame.get("serial"), "data": frame.get("data")}


def main() -> int:
    step, host, port, app_id, key, secret, channel = sys.argv[1:8]
    rest = sys.argv[8:]
    server = pusher.Pusher(app_id=app_id, key=key, secret=secret, host=host, port=int(port), ssl=False)
    report = {}
    if step == "subscribe":
        ws, _ = connect(host, port, key)
        report["subscribed"] = answer(subscribe(ws, channel))
        server.trigger(channel, "e", "first")
        report["event"] = event(json.loads(ws.recv()))
        ws.close()
    elif step == "trigger":
        first, count = int(rest[0]), int(rest[1])
        report["triggers"] = [server.trigger(channel, "e", str(index)) for index in range(first, first + count)]
    elif step == "answer":
        stream, serial = rest[0], int(rest[1])
        ws, _ = connect(host, port, key)
        report["resumed"] = answer(subscribe(ws, channel, resume={"stream": stream, "serial": serial}))
        ws.close()
    elif step == "resume":
        stream, serial, count = rest[0], int(rest[1]), int(rest[2])
        ws, _ = connect(host, port, key)
        report["resumed"] = answer(subscribe(ws, channel, resume={"stream": stream, "serial": serial}))
        report["replayed"] = [event(json.loads(ws.recv())) for _ in range(count)]
        server.trigger(channel, "e", "live")
        report["live"] = event(json.loads(ws.recv()))
        ws.close()
    else:
        print(f"unknown step {step}", file=sys.stderr)
        return 2
    print(json.dumps(report, sort_keys=True), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
