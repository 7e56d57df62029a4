"""Triggers events with the official Pusher server library (pusher==3.3.4) on a Clearance hub,
for the Swift channel client to receive (Tests/ClearanceChannelsTests/PythonInteropTests.swift).

Usage: channels_trigger.py HOST PORT APP_ID KEY SECRET MASTER_KEY_B64 CHANNEL=EVENT=JSON...

Encrypted channels (private-encrypted-) are encrypted by the library itself with
encryption_master_key_base64, exactly as an app's server would. Prints one line per trigger.

With CLEARANCE_TRIGGER_SSL=1 it triggers over https:// (ssl=True): a hub started with
--tls-certificate (Tests/ClearanceServerTests/ServeTLSTests.swift). The library verifies the
certificate against the CA bundle it ships (pusher/requests.py's CERT_PATH, passed to requests as
`verify`, so REQUESTS_CA_BUNDLE is not read): CLEARANCE_TRIGGER_CA names the test's CA instead.
"""
import json
import os
import sys

import pusher
import pusher.requests


def main() -> int:
    host, port, app_id, key, secret, master_key = sys.argv[1:7]
    if os.environ.get("CLEARANCE_TRIGGER_CA"):
        pusher.requests.CERT_PATH = os.environ["CLEARANCE_TRIGGER_CA"]
    client = pusher.Pusher(
        app_id=app_id,
        key=key,
        secret=secret,
        host=host,
        port=int(port),
        ssl=os.environ.get("CLEARANCE_TRIGGER_SSL") == "1",
        encryption_master_key_base64=master_key,
    )
    for spec in sys.argv[7:]:
        channel, event, data = spec.split("=", 2)
        result = client.trigger(channel, event, json.loads(data))
        print(json.dumps({"channel": channel, "event": event, "result": result}, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
