#!/usr/bin/env python3
"""A small webhook receiver for trying `bracelet sync --webhook` on one machine.

It listens on 127.0.0.1, checks X-Bracelet-Signature (sha256=HMAC-SHA256 of the body as it came over
the wire with the shared secret: the gzip bytes when the body has Content-Encoding: gzip, checked
before anything is decompressed), decompresses a gzip body, keeps the Idempotency-Key of every accepted delivery and answers 409 to a key it already
has, as the receiver contract in Sources/BraceletSync/BraceletSync.docc/Delivery.md asks. Each
accepted delivery is printed as one line with its study participant (the body's "user", also sent
as X-Bracelet-User when set). A bad signature gets 401, which makes `bracelet sync` pause (fix
--secret) instead of giving entries up.

With --identity-only it takes no gzip (answers 415, after which `bracelet sync` sends uncompressed),
as a receiver without gzip support does. Each accepted line says the bytes on the wire and the JSON's
length, so the compression is visible.

usage: tools/webhook-receiver.py --secret S [--port 8080] [--identity-only]
"""
import gzip
import argparse
import hashlib
import hmac
import http.server
import json


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--secret", required=True)
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--identity-only", action="store_true", help="answer 415 to gzip bodies")
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
            encoding = self.headers.get("Content-Encoding", "identity").strip().lower()
            if encoding not in ("identity", "gzip") or (encoding == "gzip" and args.identity_only):
                self.send_response(415)
                self.send_header("Accept-Encoding", "identity")
                self.end_headers()
                return
            wire = len(body)
            if encoding == "gzip":
                try:
                    body = gzip.decompress(body)
                except (OSError, EOFError):
                    self.send_response(400)
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
            print(f"accepted {key} ({kind}{who}, {wire} bytes {encoding}, {len(body)} bytes of JSON)", flush=True)
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    # Said once the port is bound: a script may wait for this line before it sends.
    print(f"listening on http://127.0.0.1:{args.port}/ (Ctrl-C to stop)", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
