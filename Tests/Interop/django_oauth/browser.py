#!/usr/bin/env python3
"""A scripted browser for the django-oauth-toolkit interop server (requests + html.parser).

  browser.py authorize URL --username U --password P [--deny]
      Opens the authorization URL, logs in on Django's login form, posts the consent form
      (CSRF token and hidden fields included), and follows the redirect to the client's
      loopback listener. Prints the final redirect URL's path (no query: it holds the code).

  browser.py device VERIFICATION_URI --user-code CODE --username U --password P [--deny]
      Logs in, enters the user code, and approves (or denies) the device.

  browser.py logout END_SESSION_URL --username U --password P
      Logs in on Django's login form, then opens the end-session URL (OpenID Connect
      RP-Initiated Logout). Prints the redirect the provider answers with (the client's
      post_logout_redirect_uri with its state) and whether the Django session ended.

Exits 0 on success; non-zero with a message on stderr otherwise.
"""

import argparse
import sys
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

import requests


class Forms(HTMLParser):
    """Collects every form: its action and its input/button fields."""

    def __init__(self):
        super().__init__()
        self.forms = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self.forms.append({"action": attrs.get("action") or "", "fields": {}, "buttons": []})
        elif tag in ("input", "button", "textarea") and self.forms:
            name = attrs.get("name")
            if not name:
                return
            kind = (attrs.get("type") or ("submit" if tag == "button" else "text")).lower()
            if kind == "submit":
                self.forms[-1]["buttons"].append((name, attrs.get("value", "")))
            else:
                self.forms[-1]["fields"][name] = attrs.get("value", "")


def parse_form(response):
    parser = Forms()
    parser.feed(response.text)
    if not parser.forms:
        fail("no form at %s (HTTP %d): %s" % (response.url, response.status_code, response.text[:500]))
    form = parser.forms[0]
    form["url"] = urljoin(response.url, form["action"])
    return form


def fail(message):
    sys.stderr.write("browser.py: %s\n" % message)
    sys.exit(1)


def is_local(url, origin):
    parts = urlsplit(url)
    return "%s://%s" % (parts.scheme, parts.netloc) == origin


def submit(session, form, extra, origin):
    fields = dict(form["fields"])
    fields.update(extra)
    # Django's CSRF check wants a Referer/Origin for same-origin posts only over HTTPS; send it anyway.
    response = session.post(form["url"], data=fields, headers={"Referer": form["url"]}, allow_redirects=False)
    return follow(session, response, origin)


def follow(session, response, origin):
    """Follows redirects within the server; returns (response, external redirect URL or None)."""
    hops = 0
    while response.is_redirect and hops < 10:
        hops += 1
        target = urljoin(response.url, response.headers["Location"])
        if not is_local(target, origin):
            return response, target
        response = session.get(target, allow_redirects=False)
    return response, None


def log_in(session, url, origin, username, password):
    """GETs url; when it lands on the login form, logs in and returns the page behind it."""
    response, external = follow(session, session.get(url, allow_redirects=False), origin)
    if external:
        return response, external
    if "/accounts/login/" in response.url:
        form = parse_form(response)
        response, external = submit(session, form, {"username": username, "password": password}, origin)
        if response.status_code == 200 and "/accounts/login/" in response.url:
            fail("login refused for %s" % username)
    return response, external


def authorize(args):
    origin = "%s://%s" % (urlsplit(args.url).scheme, urlsplit(args.url).netloc)
    session = requests.Session()
    response, external = log_in(session, args.url, origin, args.username, args.password)
    if external is None:
        if response.status_code != 200:
            fail("authorization page answered HTTP %d: %s" % (response.status_code, response.text[:500]))
        form = parse_form(response)
        extra = {} if args.deny else {"allow": "Authorize"}
        response, external = submit(session, form, extra, origin)
    if external is None:
        fail("the consent form did not redirect to the client (HTTP %d): %s" % (response.status_code, response.text[:500]))
    # The "browser" lands on the client's loopback listener.
    landed = requests.get(external, timeout=10)
    print(urlsplit(external).path, landed.status_code)


def device(args):
    origin = "%s://%s" % (urlsplit(args.url).scheme, urlsplit(args.url).netloc)
    session = requests.Session()
    response, _ = log_in(session, args.url, origin, args.username, args.password)
    form = parse_form(response)
    response, _ = submit(session, form, {"user_code": args.user_code}, origin)
    if "device-confirm" not in response.url:
        fail("the user code was not accepted (HTTP %d at %s): %s" % (response.status_code, response.url, response.text[:500]))
    form = parse_form(response)
    response, _ = submit(session, form, {"action": "deny" if args.deny else "accept"}, origin)
    if response.status_code != 200 or "device-grant-status" not in response.url:
        fail("the device decision failed (HTTP %d at %s)" % (response.status_code, response.url))
    print("device", "denied" if args.deny else "approved")


def logout(args):
    origin = "%s://%s" % (urlsplit(args.url).scheme, urlsplit(args.url).netloc)
    session = requests.Session()
    response, _ = log_in(session, origin + "/accounts/login/", origin, args.username, args.password)
    if "sessionid" not in session.cookies:
        fail("login refused for %s (HTTP %d)" % (args.username, response.status_code))
    response, external = follow(session, session.get(args.url, allow_redirects=False), origin)
    if external is None:
        fail("the end-session URL did not redirect to the client (HTTP %d): %s" % (response.status_code, response.text[:500]))
    print(external)
    print("django session:", "ended" if "sessionid" not in session.cookies else "still open")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    a = sub.add_parser("authorize")
    a.add_argument("url")
    d = sub.add_parser("device")
    d.add_argument("url")
    d.add_argument("--user-code", required=True)
    lo = sub.add_parser("logout")
    lo.add_argument("url")
    for p in (a, d, lo):
        p.add_argument("--username", required=True)
        p.add_argument("--password", required=True)
        p.add_argument("--deny", action="store_true")
    args = parser.parse_args()
    {"authorize": authorize, "device": device, "logout": logout}[args.command](args)


if __name__ == "__main__":
    main()
