#!/usr/bin/env python3
"""A small webhook receiver for trying `bracelet sync --webhook` on one machine.

It listens on 127.0.0.1, checks X-Bracelet-Signature (sha256=HMAC-SHA256 of the body with the shared
secret), keeps the Idempotency-Key of every accepted delivery and answers 409 to a key it already
has, as the receiver contract in Sources/BraceletSync/BraceletSync.docc/Delivery.md asks. Each
accepted delivery is printed as one line with its study participant (the body's "user", also sent
as X-Bracelet-User when set). A bad signature gets 401, which makes `bracelet sync` pause (fix
--secret) instead of giving entries up.

usage: tools/webhook-receiver.py --secret S [--port 8080]
"""
import argparse
import hashlib
import hmac
import http.server
import json


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--secret", required=True)
    parser.add_argument("--port", type=int, default=8080)
    args = parser.parse_args()
    seen = set()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            expected = "sha256=" + hmac.new(args.secret.encode(), body, hashlib.sha256).hexdigest()
            if not hmac.compare_digest(expected, self.headers.get("X-Bracelet-Signature", "")):
                self.send_response(401)
                self.end_headers()
                return
            key = self.headers.get("Idempotency-Key", "")
            if key in seen:
                self.send_response(409)
                self.end_headers()
                return
            seen.add(key)
            try:
                envelope = json.loads(body)
                kind, user = envelope.get("kind", "?"), envelope.get("user")
            except ValueError:
                kind, user = "?", None
            who = f", user {user}" if user is not None else ""
            print(f"accepted {key} ({kind}{who}, {len(body)} bytes)", flush=True)
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args):
            pass

    print(f"listening on http://127.0.0.1:{args.port}/ (Ctrl-C to stop)", flush=True)
    http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
