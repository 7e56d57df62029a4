"""A server that stalls: for the client deadline tests (Tests/ClearanceHTTPTests/StalledServerTests.swift
and the OAuth2, OpenID and command line tests of issue 30).

Usage: stalling_server.py

Listens on 127.0.0.1 (a free port) and prints "listening PORT". Every request prints
"request METHOD PATH" once it is read whole (head and body). The first path segment says
how it is answered:

  /head/...   the head (200, Content-Length: 100) then nothing, until the client hangs up
  /half/...   the head (200, Content-Length: 100) and 50 bytes of the body, then nothing
  /drip/...   the head (chunked) and one chunk, then nothing (a streamed download gone quiet)
  /ok/MODE/.well-known/openid-configuration
              a discovery document for the issuer http://127.0.0.1:PORT/ok/MODE whose every
              endpoint is under /MODE/ (jwks, token, userinfo, revoke, device, authorize)
  /ok/...     200 with the JSON object {} at once

Stalled connections stay open until the client closes them; a client that cancels its
request frees them. The server holds no state beyond that.
"""
import asyncio
import json
import sys


def discovery(port, mode):
    base = f"http://127.0.0.1:{port}"
    return {
        "issuer": f"{base}/ok/{mode}",
        "authorization_endpoint": f"{base}/{mode}/authorize",
        "token_endpoint": f"{base}/{mode}/token",
        "userinfo_endpoint": f"{base}/{mode}/userinfo",
        "jwks_uri": f"{base}/{mode}/jwks",
        "revocation_endpoint": f"{base}/{mode}/revoke",
        "device_authorization_endpoint": f"{base}/{mode}/device",
        "response_types_supported": ["code"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256"],
    }


async def handle(reader, writer, port):
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            method, path, _ = lines[0].split(" ", 2)
            length = 0
            for line in lines[1:]:
                name, _, value = line.partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value.strip())
            if length:
                await reader.readexactly(length)
            print(f"request {method} {path}", flush=True)
            segments = path.split("?", 1)[0].strip("/").split("/")
            mode = segments[0]
            if mode == "head":
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n")
            elif mode == "half":
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n" + b"{" + b" " * 49)
            elif mode == "drip":
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n0123456789abcdef\r\n")
            else:
                if len(segments) >= 4 and segments[-2:] == [".well-known", "openid-configuration"]:
                    body = json.dumps(discovery(port, segments[1])).encode()
                else:
                    body = b"{}"
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
                await writer.drain()
                continue
            await writer.drain()
            # Stall: wait for the client to hang up.
            while await reader.read(65536):
                pass
            return
    except (asyncio.IncompleteReadError, ConnectionError, ValueError):
        return
    finally:
        writer.close()


async def main():
    port_box = {}
    server = await asyncio.start_server(lambda r, w: handle(r, w, port_box["port"]), "127.0.0.1", 0, backlog=1024)
    port_box["port"] = server.sockets[0].getsockname()[1]
    print(f"listening {port_box['port']}", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
