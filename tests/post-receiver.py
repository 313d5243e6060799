#!/usr/bin/env python3
"""A tiny HTTP receiver for the ixperf post tests (loopback only).

Every request is logged to DIR/requests.log (one JSON line each: method, path,
content type, whether the Authorization header matched and whether there was
one at all, the status answered).
Every request answered 2xx is recorded as DIR/NNNN.body (NNNN = delivery
number from 0001), so the test can check order and count.

The status to answer is read, per request, from --status-file when it exists
(e.g. "503"; remove the file to heal the endpoint); otherwise 200. With
--token, a request without "Authorization: Bearer TOKEN" gets 401; with
--basic USER:PASSWORD, likewise for basic authentication.

It prints "listening on port N" once ready, and exits by itself after
--lifetime seconds (default 120) so that a test that dies leaves nothing.
"""
import argparse
import base64
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", required=True, help="where requests are recorded")
    ap.add_argument("--port", type=int, default=0, help="0 = a free port")
    ap.add_argument("--status-file", help="answer the status code this file holds")
    ap.add_argument("--token", help="require this bearer token")
    ap.add_argument("--basic", help="require this user:password")
    ap.add_argument("--lifetime", type=float, default=120.0)
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    state = {"delivered": 0}

    def wanted_auth():
        if args.token:
            return "Bearer " + args.token
        if args.basic:
            return "Basic " + base64.b64encode(args.basic.encode()).decode()
        return None

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, fmt, *a):  # quiet: the log file says it all
            pass

        def handle_any(self):
            n = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(n) if n > 0 else b""
            status = 200
            if args.status_file and os.path.exists(args.status_file):
                with open(args.status_file) as f:
                    status = int(f.read().strip() or "200")
            want = wanted_auth()
            auth_ok = want is None or self.headers.get("Authorization") == want
            if not auth_ok and 200 <= status < 300:
                status = 401
            if 200 <= status < 300:
                state["delivered"] += 1
                name = os.path.join(args.dir, "%04d.body" % state["delivered"])
                with open(name + ".tmp", "wb") as f:
                    f.write(body)
                os.rename(name + ".tmp", name)
            entry = {
                "method": self.command,
                "path": self.path,
                "content_type": self.headers.get("Content-Type"),
                "auth_ok": auth_ok,
                "auth_sent": self.headers.get("Authorization") is not None,
                "status": status,
                "length": len(body),
            }
            with open(os.path.join(args.dir, "requests.log"), "a") as f:
                f.write(json.dumps(entry) + "\n")
            reply = b"ok\n" if status < 300 else b"receiver says no (%d)\n" % status
            self.send_response(status)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        do_POST = handle_any
        do_PUT = handle_any

    srv = HTTPServer(("127.0.0.1", args.port), Handler)
    print("listening on port %d" % srv.server_address[1], flush=True)
    timer = threading.Timer(args.lifetime, srv.shutdown)
    timer.daemon = True
    timer.start()
    srv.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
