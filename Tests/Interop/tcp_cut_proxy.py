#!/usr/bin/env python3
"""A TCP proxy on loopback that a test can cut: what a phone's network change does to its
connection while the server stays up (Tests/ClearanceChannelsTests/ChannelRecoveryTests.swift).

Usage: tcp_cut_proxy.py TARGET_PORT
  Listens on a free loopback port and prints {"port": N} once it does. Forwards every connection
  to 127.0.0.1:TARGET_PORT. Each line "cut" on standard input closes every open connection at once
  (both sides) and prints {"cut": COUNT}; new connections are forwarded as before. Ends when
  standard input closes.
"""
import json
import socket
import sys
import threading

lock = threading.Lock()
open_pairs = []


def pump(source, destination):
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            destination.sendall(data)
    except OSError:
        pass
    finally:
        for side in (source, destination):
            try:
                side.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def accept(listener, target_port):
    while True:
        try:
            client, _ = listener.accept()
        except OSError:
            return
        try:
            upstream = socket.create_connection(("127.0.0.1", target_port))
        except OSError:
            client.close()
            continue
        with lock:
            open_pairs.append((client, upstream))
        threading.Thread(target=pump, args=(client, upstream), daemon=True).start()
        threading.Thread(target=pump, args=(upstream, client), daemon=True).start()


def main() -> int:
    target_port = int(sys.argv[1])
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    threading.Thread(target=accept, args=(listener, target_port), daemon=True).start()
    print(json.dumps({"port": listener.getsockname()[1]}), flush=True)
    for line in sys.stdin:
        if line.strip() != "cut":
            continue
        with lock:
            pairs = list(open_pairs)
            open_pairs.clear()
        for pair in pairs:
            for side in pair:
                try:
                    side.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                side.close()
        print(json.dumps({"cut": len(pairs)}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
