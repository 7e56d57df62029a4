"""Terminates a user's connections with the official Pusher server library (pusher==3.3.4) on a
Clearance hub (Tests/ClearanceServerPostgresTests/ClusterTerminateTests.swift).

Usage: channels_terminate.py HOST PORT APP_ID KEY SECRET USER_ID

Prints the library's result as JSON on one line; exits non-zero (the library raises) when the hub
refuses the request.
"""
import json
import sys

import pusher


def main() -> int:
    host, port, app_id, key, secret, user_id = sys.argv[1:7]
    client = pusher.Pusher(app_id=app_id, key=key, secret=secret, host=host, port=int(port), ssl=False)
    result = client.terminate_user_connections(user_id)
    print(json.dumps({"result": result}, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
