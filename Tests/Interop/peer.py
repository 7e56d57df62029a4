"""Runs a peer script of Tests/Interop so that it ends with the test process that started it.

Usage: peer.py SCRIPT [ARGUMENTS...]   (PythonPeer in Tests/ClearanceTestSupport runs every peer so)

A test process that crashes or is killed cannot stop its peers; without this, a server peer
(stalling_server.py, webhook_receiver.py, hub_watch.py, …) would run on, holding its port and
its CPU, into the next run. A daemon thread watches the parent's process id: once the parent is
gone (the peer was handed to another parent), the peer sends itself SIGTERM, and SIGKILL a
second later if that did not end it. SCRIPT then runs as `python SCRIPT ARGUMENTS...` would run
it: as __main__, with its own folder first on sys.path and sys.argv[0] its path.
"""
import os
import runpy
import signal
import sys
import threading
import time


def end_with_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.25)
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(1)
    os.kill(os.getpid(), signal.SIGKILL)


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit("usage: peer.py SCRIPT [ARGUMENTS...]")
    script = os.path.abspath(sys.argv[1])
    threading.Thread(target=end_with_parent, args=(os.getppid(),), name="end-with-parent", daemon=True).start()
    sys.argv = [script] + sys.argv[2:]
    sys.path[0] = os.path.dirname(script)
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main()
