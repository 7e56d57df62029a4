#!/usr/bin/env python3
"""PyJWT peer for the customer-token interop test (Tests/ClearanceServerTests/CustomerTokenInteropTests.swift).

Usage: pyjwt_customer_tokens.py mint|verify   (a JSON request on standard input, a JSON answer on standard output)

mint   request {"secret": S, "kid": K, "customer": {...}, "now": T}
       answer  {"pyjwt": VERSION, "tokens": {NAME: JWT, ...}}: good and bad customer tokens made with PyJWT
       (HS256 with and without exp, alg none, HS384, RS256, wrong kid, no kid, expired, expired within a
       30 s leeway, not yet valid, tampered payload, tampered signature, another secret, malformed
       shapes, bad claims, a crit header).
verify request {"secret": S, "kid": K, "tokens": [JWT, ...], "now": T}
       answer  {"pyjwt": VERSION, "results": [{"ok": true, "header": {...}, "claims": {...}} |
                                              {"ok": false, "error": "ExceptionName: message"}, ...]}
       Each token is decoded with algorithms=["HS256"] (the kid must be K) and, as PyJWT 2.10+ needs for
       Bloomreach tokens, options={"verify_sub": False}.

Exit status 3 means PyJWT (or cryptography) is not importable; 2 means the request was malformed.
"""
import base64
import json
import sys

try:
    import jwt
    from cryptography.hazmat.primitives.asymmetric import rsa
except ImportError as error:  # pragma: no cover - environment problem, reported by the Swift test
    sys.stderr.write(f"PyJWT is not importable ({error}); run scripts/test (or scripts/python-env)\n")
    sys.exit(3)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def segment(obj) -> str:
    return b64url(json.dumps(obj, separators=(",", ":")).encode("utf-8"))


def mint(request):
    secret, kid, customer, now = request["secret"], request["kid"], request["customer"], int(request["now"])
    good = {"sub": customer, "exp": now + 600}
    hs256 = lambda payload, headers=None, key=secret: jwt.encode(payload, key, algorithm="HS256", headers=headers if headers is not None else {"kid": kid})
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    tokens = {
        "good": hs256(good),
        "good_without_exp": hs256({"sub": customer}),
        "expired_within_leeway": hs256({"sub": customer, "exp": now - 10}),
        "alg_none": jwt.encode(good, None, algorithm="none", headers={"kid": kid}),
        "hs384": jwt.encode(good, secret, algorithm="HS384", headers={"kid": kid}),
        "rs256": jwt.encode(good, rsa_key, algorithm="RS256", headers={"kid": kid}),
        "wrong_kid": hs256(good, {"kid": kid + "-other"}),
        "no_kid": hs256(good, {}),
        "expired": hs256({"sub": customer, "exp": now - 120}),
        "not_yet_valid": hs256({"sub": customer, "exp": now + 600, "nbf": now + 300}),
        "wrong_secret": hs256(good, key=secret + "-but-another-one"),
        "sub_string": hs256({"sub": "jane", "exp": now + 600}),
        "sub_missing": hs256({"exp": now + 600}),
        "sub_empty": hs256({"sub": {}, "exp": now + 600}),
        "exp_string": hs256({"sub": customer, "exp": "tomorrow"}),
        "crit_header": hs256(good, {"kid": kid, "crit": ["exp"]}),
    }
    header, payload, signature = tokens["good"].split(".")
    forged = dict(good, sub=dict(customer, registered="mallory@example.com"))
    tokens["tampered_payload"] = ".".join([header, segment(forged), signature])
    flipped = ("A" if signature[0] != "A" else "B") + signature[1:]
    tokens["tampered_signature"] = ".".join([header, payload, flipped])
    tokens["two_segments"] = header + "." + payload
    tokens["four_segments"] = tokens["good"] + ".extra"
    tokens["not_base64"] = header + ".%%%." + signature
    tokens["header_not_json"] = b64url(b"not json") + "." + payload + "." + signature
    tokens["payload_not_object"] = header + "." + segment([1, 2, 3]) + "." + signature
    tokens["empty"] = ""
    return {"pyjwt": jwt.__version__, "tokens": tokens}


def verify(request):
    secret, kid = request["secret"], request["kid"]
    results = []
    for token in request["tokens"]:
        try:
            header = jwt.get_unverified_header(token)
            if header.get("kid") != kid:
                raise ValueError(f"kid {header.get('kid')!r} is not {kid!r}")
            claims = jwt.decode(token, secret, algorithms=["HS256"], options={"verify_sub": False}, leeway=0)
            results.append({"ok": True, "header": header, "claims": claims})
        except Exception as error:  # every refusal is reported to the Swift side
            results.append({"ok": False, "error": f"{type(error).__name__}: {error}"})
    return {"pyjwt": jwt.__version__, "results": results}


def main(argv):
    if len(argv) != 2 or argv[1] not in ("mint", "verify"):
        sys.stderr.write("usage: pyjwt_customer_tokens.py mint|verify < request.json\n")
        return 2
    try:
        request = json.load(sys.stdin)
    except ValueError as error:
        sys.stderr.write(f"the request is not JSON: {error}\n")
        return 2
    answer = mint(request) if argv[1] == "mint" else verify(request)
    json.dump(answer, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
