#!/usr/bin/env python3
"""Drives the official Pusher server library (pusher==3.3.4) for ClearanceSigningTests.

Usage: pusher_signatures.py CASES.jsonl RESULTS.jsonl

Reads one JSON case per line and writes one JSON result per line (the first output line is
{"pusher_version": ...}). Every value in a result comes from the library's own code paths:

* "channel": pusher.Pusher(...).authenticate(channel, socket_id, custom_data)
    mode "canonical": custom_data is json.loads(channel_data); the library re-serializes it with
        its default json.dumps, and the result carries the string it produced (the Swift test
        checks that it equals the input, i.e. the input was already in that form).
    mode "verbatim": the Pusher instance gets json_encoder=VerbatimEncoder (a public constructor
        parameter) and custom_data is a RawJSON, so the library's json.dumps call returns the
        client's exact string and the library signs those bytes.
* "user": pusher.Pusher(...).authenticate_user(socket_id, user_data), same two modes.
* "rest": the library's request builders (trigger, trigger_batch, channels_info, channel_info,
    users_info) via make_request(), with time.time() pinned to the case's timestamp; the result
    is the signed Request: method, path, body, query params, and the string it signed
    (recomputed with pusher.http.make_query_string). GET requests from this library always carry
    body_md5 (of the empty body); the result also has the library's signature over the same
    parameters without body_md5, which is what other libraries (and Clearance) send.

A missing interpreter, library or malformed case makes the script exit non-zero with a message.
"""

import base64
import json
import sys
import types

try:
    import pusher
    import pusher.http
    import pusher.version
    from pusher.http import make_query_string
    from pusher.signature import sign
except ImportError as error:  # pragma: no cover - reported to the Swift test
    sys.stderr.write("cannot import the pusher library: %s\n" % error)
    sys.exit(3)


class RawJSON(dict):
    """A dict (so the library's checks such as user_data.get('id') work) that remembers the
    exact JSON text it was parsed from."""

    def __init__(self, raw):
        super().__init__(json.loads(raw))
        self.raw = raw


class VerbatimEncoder(json.JSONEncoder):
    """json.dumps(obj, cls=VerbatimEncoder) returns a RawJSON's original text unchanged."""

    def encode(self, o):
        if isinstance(o, RawJSON):
            return o.raw
        return super().encode(o)


_clients = {}


def client_for(app, verbatim):
    cache_key = (app.get("app_id", "1"), app["key"], app["secret"], app.get("master_key_base64"), verbatim)
    client = _clients.get(cache_key)
    if client is None:
        client = pusher.Pusher(
            app_id=app.get("app_id", "1"),
            key=app["key"],
            secret=app["secret"],
            encryption_master_key_base64=app.get("master_key_base64"),
            json_encoder=VerbatimEncoder if verbatim else None,
        )
        _clients[cache_key] = client
    return client


def response_json(payload):
    """The auth endpoint response as compact JSON with sorted keys and raw UTF-8."""
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def text(value):
    return value.decode("utf-8") if isinstance(value, bytes) else value


def run_channel(case):
    verbatim = case["mode"] == "verbatim"
    client = client_for(case["app"], verbatim)
    custom_data = None
    if case.get("channel_data") is not None:
        raw = case["channel_data"]
        custom_data = RawJSON(raw) if verbatim else json.loads(raw)
    payload = client.authenticate(case["channel"], case["socket_id"], custom_data)
    payload = {name: text(value) for name, value in payload.items()}
    result = {"id": case["id"], "auth": payload["auth"], "response_json": response_json(payload)}
    if "channel_data" in payload:
        result["channel_data"] = payload["channel_data"]
    if "shared_secret" in payload:
        result["shared_secret"] = payload["shared_secret"]
    return result


def run_user(case):
    verbatim = case["mode"] == "verbatim"
    client = client_for(case["app"], verbatim)
    raw = case["user_data"]
    user_data = RawJSON(raw) if verbatim else json.loads(raw)
    payload = client.authenticate_user(case["socket_id"], user_data)
    payload = {name: text(value) for name, value in payload.items()}
    return {
        "id": case["id"],
        "auth": payload["auth"],
        "user_data": payload["user_data"],
        "response_json": response_json(payload),
    }


def build_rest_request(client, case):
    call = case["call"]
    args = case["args"]
    if call == "trigger":
        return client.trigger.make_request(args["channels"], args["event"], args["data"], args.get("socket_id"))
    if call == "trigger_batch":
        return client.trigger_batch.make_request(args["batch"])
    if call == "channels_info":
        return client.channels_info.make_request(args.get("prefix_filter"), args.get("attributes", []))
    if call == "channel_info":
        return client.channel_info.make_request(args["channel"], args.get("attributes", []))
    if call == "users_info":
        return client.users_info.make_request(args["channel"])
    raise ValueError("unknown REST call %r" % call)


def run_rest(case):
    client = client_for(case["app"], False)._pusher_client
    timestamp = float(case["timestamp"])
    original_time = pusher.http.time
    pusher.http.time = types.SimpleNamespace(time=lambda: timestamp)
    try:
        request = build_rest_request(client, case)
    finally:
        pusher.http.time = original_time
    params = dict(request.query_params)
    unsigned = {name: value for name, value in params.items() if name != "auth_signature"}
    string_to_sign = "\n".join([request.method, request.path, make_query_string(unsigned)])
    result = {
        "id": case["id"],
        "method": request.method,
        "path": request.path,
        "body": request.body.decode("utf-8"),
        "query_params": params,
        "string_to_sign": string_to_sign,
    }
    if request.method == "GET":
        without_md5 = {name: value for name, value in unsigned.items() if name != "body_md5"}
        string_without_md5 = "\n".join([request.method, request.path, make_query_string(without_md5)])
        result["string_to_sign_without_body_md5"] = string_without_md5
        result["signature_without_body_md5"] = sign(client.secret, string_without_md5)
    return result


RUNNERS = {"channel": run_channel, "user": run_user, "rest": run_rest}


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: pusher_signatures.py CASES.jsonl RESULTS.jsonl\n")
        return 2
    with open(argv[1], encoding="utf-8") as cases, open(argv[2], "w", encoding="utf-8") as results:
        results.write(json.dumps({"pusher_version": pusher.version.VERSION}) + "\n")
        for number, line in enumerate(cases, start=1):
            if not line.strip():
                continue
            case = json.loads(line)
            try:
                result = RUNNERS[case["type"]](case)
            except Exception as error:
                sys.stderr.write("case %s (line %d) failed in the pusher library: %r\n" % (case.get("id"), number, error))
                return 1
            results.write(json.dumps(result, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
