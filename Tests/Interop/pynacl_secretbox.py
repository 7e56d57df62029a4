#!/usr/bin/env python3
"""PyNaCl peer for the ClearanceSecretBox interop test (Tests/ClearanceSecretBoxTests/InteropTests.swift).

Usage: pynacl_secretbox.py INPUT OUTPUT

INPUT (little-endian):
    b"SBX1", u32 case count, then per case:
    key[32], nonce[24], u32 n, message[n], swift_box[n + 16]

For every case PyNaCl seals the message (nacl.secret.SecretBox(key).encrypt(message, nonce).ciphertext,
i.e. tag || ciphertext) and opens the box Swift made.

OUTPUT (little-endian):
    b"SBR1", u32 case count, u8 len + PyNaCl version (ASCII), then per case:
    u8 status, pynacl_box[n + 16]
    status 0: PyNaCl opened Swift's box to exactly the message
           1: PyNaCl opened Swift's box but got different bytes
           2: PyNaCl rejected Swift's box (CryptoError)

Exit status 3 means PyNaCl is not importable; 2 means the input was malformed.
"""
import struct
import sys

try:
    import nacl
    import nacl.exceptions
    import nacl.secret
except ImportError as error:  # pragma: no cover - environment problem, reported by the Swift test
    sys.stderr.write(f"PyNaCl is not importable ({error}); run scripts/test (or scripts/python-env)\n")
    sys.exit(3)


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: pynacl_secretbox.py INPUT OUTPUT\n")
        return 2
    with open(argv[1], "rb") as f:
        data = f.read()
    if data[:4] != b"SBX1":
        sys.stderr.write("input does not start with SBX1\n")
        return 2
    (count,) = struct.unpack_from("<I", data, 4)
    pos = 8
    version = nacl.__version__.encode("ascii")
    out = [b"SBR1", struct.pack("<I", count), bytes([len(version)]), version]
    for _ in range(count):
        key = data[pos:pos + 32]
        nonce = data[pos + 32:pos + 56]
        (n,) = struct.unpack_from("<I", data, pos + 56)
        pos += 60
        message = data[pos:pos + n]
        pos += n
        swift_box = data[pos:pos + n + 16]
        pos += n + 16
        if len(key) != 32 or len(nonce) != 24 or len(message) != n or len(swift_box) != n + 16:
            sys.stderr.write("input truncated\n")
            return 2
        box = nacl.secret.SecretBox(key)
        ours = box.encrypt(message, nonce).ciphertext
        try:
            opened = box.decrypt(swift_box, nonce)
            status = 0 if opened == message else 1
        except nacl.exceptions.CryptoError:
            status = 2
        out.append(bytes([status]))
        out.append(ours)
    if pos != len(data):
        sys.stderr.write("trailing bytes in input\n")
        return 2
    with open(argv[2], "wb") as f:
        f.write(b"".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
