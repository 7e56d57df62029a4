#!/usr/bin/env python3
"""Publishing from inside an app's own transactions, as a Python backend does it: psycopg==3.3.9
calling clearance_publish(app_id, channels, event, data[, socket_id]) in real transactions on the
cluster's PostgreSQL. (Tests/ClearanceServerPostgresTests/ServeOutboxTests.swift)

Usage: outbox_publish.py PORT ROLE STEP ARGUMENTS...
  commit APP_ID CHANNELS COUNT PER_TRANSACTION
      COUNT events, PER_TRANSACTION to a committed transaction, each on every channel of the
      comma-separated CHANNELS in turn (data "<channel>:<n>", n from 1 per channel)
  rollback APP_ID CHANNEL COUNT
      COUNT events in transactions that roll back (data "rolled-back:<n>")
  one APP_ID CHANNELS EVENT DATA
      one event in its own committed transaction (any app id, event name, channels, data)
  probe
      what ROLE may do: publish, read the outbox, read the backplane's node table
Prints one JSON object.
"""
import json
import sys

import psycopg


def connect(port, role):
    return psycopg.connect(host="127.0.0.1", port=int(port), user=role, dbname="postgres", connect_timeout=10)


def publish(cursor, app_id, channels, event, data):
    cursor.execute("SELECT clearance_publish(%s, %s, %s, %s)", (app_id, channels, event, data))
    return cursor.fetchone()[0]


def main() -> int:
    port, role, step = sys.argv[1:4]
    rest = sys.argv[4:]
    report = {}
    if step == "commit":
        app_id, channels, count, per = rest[0], rest[1].split(","), int(rest[2]), int(rest[3])
        counters = {channel: 0 for channel in channels}
        published = 0
        with connect(port, role) as connection:
            while published < count:
                with connection.transaction():
                    with connection.cursor() as cursor:
                        for _ in range(min(per, count - published)):
                            channel = channels[published % len(channels)]
                            counters[channel] += 1
                            publish(cursor, app_id, [channel], "e", f"{channel}:{counters[channel]}")
                            published += 1
        report["published"] = counters
    elif step == "rollback":
        app_id, channel, count = rest[0], rest[1], int(rest[2])
        with connect(port, role) as connection:
            for index in range(1, count + 1):
                try:
                    with connection.transaction():
                        with connection.cursor() as cursor:
                            publish(cursor, app_id, [channel], "e", f"rolled-back:{index}")
                            raise RuntimeError("roll back")
                except RuntimeError:
                    pass
        report["rolled_back"] = count
    elif step == "one":
        app_id, channels, event, data = rest[0], rest[1].split(","), rest[2], rest[3]
        with connect(port, role) as connection:
            with connection.transaction():
                with connection.cursor() as cursor:
                    report["id"] = publish(cursor, app_id, channels, event, data)
    elif step == "probe":
        with connect(port, role) as connection:
            connection.autocommit = True
            for name, sql, arguments in [
                ("publish", "SELECT clearance_publish(%s, %s, %s, %s)", ("1234", ["probe"], "e", "probe")),
                ("read_outbox", "SELECT count(*) FROM clearance_backplane_outbox", None),
                ("read_nodes", "SELECT count(*) FROM clearance_backplane_nodes", None),
            ]:
                try:
                    with connection.cursor() as cursor:
                        cursor.execute(sql, arguments)
                        cursor.fetchone()
                    report[name] = "allowed"
                except psycopg.errors.InsufficientPrivilege as error:
                    report[name] = "denied: " + str(error).splitlines()[0]
    else:
        print(f"unknown step {step}", file=sys.stderr)
        return 2
    print(json.dumps(report, sort_keys=True), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
