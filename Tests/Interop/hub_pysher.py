#!/usr/bin/env python3
"""Drives a running Clearance hub with third-party Pusher libraries only.

pysher (a published Python Pusher client) connects, fetches authorizations from the hub's own
auth endpoint and subscribes to a public, a private and a presence channel; the official
`pusher` server library triggers events through the hub's HTTP API and queries it. Prints one
JSON object per line: {"check": NAME, "ok": true|false, "detail": ...}, then {"done": true}.
Every wait has a timeout, and the whole run is killed by SIGALRM after --deadline seconds.

Usage: hub_pysher.py --port P --app-id ID --key K --secret S --alice-token T --bob-token T [--history]
"""
import argparse
import json
import logging
import os
import queue
import signal
import sys
import time

import pusher
import pysher
from pusher.errors import PusherBadAuth
import requests
from pysher.channel import Channel

# Under a sanitizer (scripts/sanitize) the hub runs several times slower: every wait stretches by
# CLEARANCE_TEST_TIME_SCALE, as the Swift tests' waits do (TestTiming).
try:
    SCALE = min(max(int(os.environ.get("CLEARANCE_TEST_TIME_SCALE", "1")), 1), 20)
except ValueError:
    SCALE = 1


def emit(check, ok, detail=None):
    print(json.dumps({"check": check, "ok": bool(ok), "detail": detail}), flush=True)


class RecordingPusher(pysher.Pusher):
    """pysher, recording every channel event (even before a callback could be bound), with a
    subscribe that takes its authorization (and presence channel_data) from an auth endpoint."""

    def __init__(self, *args, **kwargs):
        self.events = queue.Queue()
        self.errors = queue.Queue()
        self.stash = []
        super().__init__(*args, **kwargs)
        self.connection.bind("pusher:error", lambda data: self.errors.put(data))

    def _connection_handler(self, event_name, data, channel_name):
        self.events.put((event_name, channel_name, data))
        super()._connection_handler(event_name, data, channel_name)

    def subscribe_with_endpoint(self, channel_name):
        # pysher discards the endpoint's channel_data and signs json.dumps(user_data) instead,
        # which cannot match a server-chosen channel_data byte for byte: send what the endpoint signed.
        response = requests.post(
            self.auth_endpoint,
            data={"socket_id": self.connection.socket_id, "channel_name": channel_name},
            headers=self.auth_endpoint_headers,
            timeout=5 * SCALE,
        )
        response.raise_for_status()
        body = response.json()
        self.channels[channel_name] = Channel(channel_name, self.connection)
        data = {"channel": channel_name, "auth": body["auth"]}
        if "channel_data" in body:
            data["channel_data"] = body["channel_data"]
        self.connection.send_event("pusher:subscribe", data)
        return self.channels[channel_name]

    def wait_for(self, event, channel, timeout=10.0):
        """The data of the first recorded (event, channel), or None after the timeout."""
        for index, (name, chan, data) in enumerate(self.stash):
            if name == event and chan == channel:
                del self.stash[index]
                return data
        deadline = time.monotonic() + timeout * SCALE
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            try:
                name, chan, data = self.events.get(timeout=remaining)
            except queue.Empty:
                return None
            if name == event and chan == channel:
                return data
            self.stash.append((name, chan, data))


def decode(data):
    if isinstance(data, str):
        try:
            return json.loads(data)
        except ValueError:
            return data
    return data


def connect(args, token):
    client = RecordingPusher(
        args.key,
        custom_host="127.0.0.1",
        port=args.port,
        secure=False,
        auth_endpoint="http://127.0.0.1:%d/pusher/auth" % args.port,
        auth_endpoint_headers={"Authorization": "Bearer " + token},
        log_level=logging.WARNING,
    )
    client.connect()
    deadline = time.monotonic() + 10 * SCALE
    while time.monotonic() < deadline:
        if client.connection.state == "connected" and client.connection.socket_id:
            return client
        time.sleep(0.02)
    raise RuntimeError("pysher did not connect")


def main():
    parser = argparse.ArgumentParser()
    for name in ("port",):
        parser.add_argument("--" + name, type=int, required=True)
    for name in ("app-id", "key", "secret", "alice-token", "bob-token"):
        parser.add_argument("--" + name, required=True)
    parser.add_argument("--deadline", type=int, default=60)
    # The app keeps a channel history: the HTTP API answers each event's serial per channel
    # (presence channels have none), and every event frame carries "serial" and "stream".
    parser.add_argument("--history", action="store_true")
    args = parser.parse_args()
    signal.signal(signal.SIGALRM, lambda *_: (emit("deadline", False, "killed after %ds" % args.deadline), sys.exit(3)))
    signal.alarm(args.deadline)

    server = pusher.Pusher(app_id=args.app_id, key=args.key, secret=args.secret, host="127.0.0.1", port=args.port, ssl=False, timeout=5 * SCALE)

    alice = connect(args, args.alice_token)
    emit("connected", True, {"socket_id": alice.connection.socket_id})

    public = "room-1"
    private = "private-orders"
    presence = "presence-lobby"
    alice.subscribe(public)
    # pysher's own auth_endpoint support: form POST with socket_id and channel_name.
    alice.subscribe(private)
    alice.subscribe_with_endpoint(presence)
    for channel in (public, private, presence):
        data = alice.wait_for("pusher_internal:subscription_succeeded", channel)
        emit("subscribed:" + channel, data is not None, decode(data))

    server_info = server.channel_info(presence, ["user_count", "subscription_count"])
    emit("channel_info", server_info.get("user_count") == 1 and server_info.get("occupied") is True, server_info)

    result = server.trigger([public, private, presence], "greeting", {"text": "hello"})
    if args.history:
        serials = result.get("channels", {})
        ok = set(serials) == {public, private} and all(isinstance(serials[c].get("serial"), int) for c in serials)
        emit("trigger_response", ok, result)
    else:
        emit("trigger_response", result == {}, result)
    for channel in (public, private, presence):
        data = alice.wait_for("greeting", channel)
        emit("received:" + channel, decode(data) == {"text": "hello"}, decode(data))

    server.trigger_batch([
        {"channel": public, "name": "batched", "data": {"n": 1}},
        {"channel": private, "name": "batched", "data": {"n": 2}},
    ])
    got = [decode(alice.wait_for("batched", public)), decode(alice.wait_for("batched", private))]
    emit("batch_received", got == [{"n": 1}, {"n": 2}], got)

    # socket_id exclusion: alice asked not to receive her own echo.
    server.trigger(public, "excluded", {"x": 1}, socket_id=alice.connection.socket_id)
    server.trigger(public, "after", {"x": 2})
    after = alice.wait_for("after", public)
    emit("socket_id_excluded", after is not None and alice.wait_for("excluded", public, timeout=0.2) is None, None)

    # A wrong signature is refused, per channel.
    alice.subscribe("private-forbidden", auth=args.key + ":" + "0" * 64)
    refusal = alice.wait_for("pusher:subscription_error", "private-forbidden")
    emit("wrong_signature_refused", refusal is not None and decode(refusal).get("status") == 401, decode(refusal))

    # Presence: a second user joins and leaves.
    bob = connect(args, args.bob_token)
    bob.subscribe_with_endpoint(presence)
    bob_joined = decode(bob.wait_for("pusher_internal:subscription_succeeded", presence))
    ids = sorted((bob_joined or {}).get("presence", {}).get("ids", []))
    emit("second_member_sees_both", ids == ["alice", "bob"], bob_joined)
    added = decode(alice.wait_for("pusher_internal:member_added", presence))
    emit("member_added", isinstance(added, dict) and added.get("user_id") == "bob", added)

    users = server.users_info(presence)
    emit("users_info", sorted(user["id"] for user in users["users"]) == ["alice", "bob"], users)
    channels = server.channels_info(prefix_filter="presence-", attributes=["user_count"])
    emit("channels_info", channels.get("channels", {}).get(presence, {}).get("user_count") == 2, channels)

    bob.disconnect(timeout=1)  # the socket is closed before the join; the thread may linger (daemon)
    removed = decode(alice.wait_for("pusher_internal:member_removed", presence))
    emit("member_removed", isinstance(removed, dict) and removed.get("user_id") == "bob", removed)

    # The official library is refused with the wrong secret, and its error is a 401.
    wrong = pusher.Pusher(app_id=args.app_id, key=args.key, secret="wrong-secret", host="127.0.0.1", port=args.port, ssl=False, timeout=5 * SCALE)
    try:
        wrong.trigger(public, "nope", {})
        emit("wrong_secret_refused", False, "accepted")
    except PusherBadAuth as error:
        emit("wrong_secret_refused", True, str(error)[:200])

    emit("no_connection_errors", alice.errors.empty(), None)
    alice.disconnect(timeout=1)
    print(json.dumps({"done": True}), flush=True)
    signal.alarm(0)


if __name__ == "__main__":
    try:
        main()
    except Exception as error:  # reported, never hidden
        emit("exception", False, "%s: %s" % (type(error).__name__, error))
        sys.exit(2)
