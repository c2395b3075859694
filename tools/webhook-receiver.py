#!/usr/bin/env python3
"""A small webhook receiver for trying `bracelet sync --webhook` on one machine.

It listens on 127.0.0.1 and verifies each request with the Standard Webhooks verifier (the
`standardwebhooks` package from PyPI: `pip install standardwebhooks`; where it is not installed, as on
a plain Debian machine, with the few lines of the specification below), as any receiver can: the
headers webhook-id, webhook-timestamp and webhook-signature sign "id.timestamp.body", where the body
is the JSON itself (a gzip body is decompressed first, at most 64 MiB, before it is verified). The
verifier refuses a request whose timestamp is more than 5 minutes away from now, so a captured
request cannot be replayed later; within those 5 minutes this receiver keeps every webhook-id it
accepted and answers 409 to one it already has, as the receiver contract in
Sources/BraceletSync/BraceletSync.docc/Delivery.md asks. A secret that starts with whsec_ is the
specification's base64 key; any other secret is used as its bytes. A bad signature gets 401, which
makes `bracelet sync` pause (fix the secret) instead of giving entries up. Each accepted delivery is
printed as one line with its study participant (the body's "user", also sent as X-Bracelet-User).

The secret comes from --secret-file FILE, else $BRACELET_WEBHOOK_SECRET (--secret S exists for test
scripts: on a shared host every user can read a command line). With --identity-only it takes no
gzip (answers 415, after which `bracelet sync` sends uncompressed), as a receiver without gzip
support does; each accepted line says the bytes on the wire and the JSON's length. With
--tls-cert/--tls-key it speaks https.

usage: tools/webhook-receiver.py [--secret-file FILE] [--port 8080] [--identity-only]
                                 [--tls-cert CERT --tls-key KEY]
"""
import argparse
import base64
import hashlib
import hmac
import http.server
import json
import os
import ssl
import sys
import time
import zlib

TOLERANCE_SECONDS = 5 * 60

try:
    from standardwebhooks.webhooks import Webhook, WebhookVerificationError
except ImportError:
    class WebhookVerificationError(Exception):
        pass

    class Webhook:
        """The Standard Webhooks check without the package: HMAC-SHA256 of "id.timestamp.body",
        base64, against each "v1,..." of webhook-signature; the timestamp within 5 minutes."""

        def __init__(self, secret):
            self.key = base64.b64decode(secret[len("whsec_"):]) if isinstance(secret, str) else secret

        def verify(self, body, headers):
            headers = {k.lower(): v for k, v in headers.items()}
            try:
                msg_id, stamp, signatures = headers["webhook-id"], headers["webhook-timestamp"], headers["webhook-signature"]
                sent = int(stamp)
            except (KeyError, ValueError):
                raise WebhookVerificationError("missing or malformed webhook headers")
            if abs(time.time() - sent) > TOLERANCE_SECONDS:
                raise WebhookVerificationError("message timestamp too old or too new")
            expected = base64.b64encode(hmac.new(self.key, f"{msg_id}.{stamp}.".encode() + body, hashlib.sha256).digest())
            for signature in signatures.split():
                version, _, value = signature.partition(",")
                if version == "v1" and hmac.compare_digest(value.encode(), expected):
                    return json.loads(body)
            raise WebhookVerificationError("no matching signature found")

LARGEST_BODY = 64 << 20


def secret_from(args):
    if args.secret_file:
        with open(args.secret_file, encoding="utf-8") as file:
            secret = file.readline().strip()
    else:
        secret = args.secret or os.environ.get("BRACELET_WEBHOOK_SECRET", "")
    if not secret:
        sys.exit("webhook-receiver: give the secret with --secret-file FILE or $BRACELET_WEBHOOK_SECRET")
    return secret


def verifier(secret):
    # The verifier base64-decodes a str secret (the whsec_ format); bytes are used as they are.
    return Webhook(secret) if secret.startswith("whsec_") else Webhook(secret.encode())


def gunzip(body):
    """The JSON of a gzip body, refusing one that inflates beyond LARGEST_BODY (a decompression bomb)."""
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    data = inflater.decompress(body, LARGEST_BODY + 1)
    if len(data) > LARGEST_BODY or inflater.unconsumed_tail or not inflater.eof:
        raise ValueError("body is not one whole gzip member of at most 64 MiB")
    return data


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--secret-file", help="read the secret from this file's first line")
    parser.add_argument("--secret", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--identity-only", action="store_true", help="answer 415 to gzip bodies")
    parser.add_argument("--tls-cert", help="serve https with this certificate (PEM)")
    parser.add_argument("--tls-key", help="the certificate's private key (PEM)")
    args = parser.parse_args()
    hook = verifier(secret_from(args))
    seen = set()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def answer(self, status, text=""):
            body = text.encode()
            self.send_response(status)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
            if status == 415:
                self.send_header("Accept-Encoding", "identity")
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0"))
            if length > LARGEST_BODY:
                self.answer(413, "body too large")
                return
            body = self.rfile.read(length)
            encoding = self.headers.get("Content-Encoding", "identity").strip().lower()
            if encoding not in ("identity", "gzip") or (encoding == "gzip" and args.identity_only):
                self.answer(415, "identity only")
                return
            wire = len(body)
            if encoding == "gzip":
                try:
                    body = gunzip(body)
                except (ValueError, zlib.error) as error:
                    self.answer(400, str(error))
                    return
            try:
                envelope = hook.verify(body, dict(self.headers.items()))
            except (WebhookVerificationError, ValueError) as error:
                print(f"refused: {error}", file=sys.stderr, flush=True)
                self.answer(401, "bad signature")
                return
            key = self.headers.get("webhook-id", "")
            if key in seen:
                self.answer(409, "already have it")
                return
            seen.add(key)
            kind = envelope.get("kind", "?") if isinstance(envelope, dict) else "?"
            user = envelope.get("user") if isinstance(envelope, dict) else None
            who = f", user {user}" if user is not None else ""
            print(f"accepted {key} ({kind}{who}, {wire} bytes {encoding}, {len(body)} bytes of JSON)", flush=True)
            self.answer(200)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    scheme = "http"
    if args.tls_cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.tls_cert, args.tls_key)
        server.socket = context.wrap_socket(server.socket, server_side=True)
        scheme = "https"
    # Said once the port is bound: a script may wait for this line before it sends.
    print(f"listening on {scheme}://127.0.0.1:{server.server_address[1]}/ (Ctrl-C to stop)", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
