#!/usr/bin/env python3
"""A hostile man in the middle for the RDMA replay test (rdma_rxe.sh):
listens on PORT, forwards a real client's control frames to the agent at
HOST:APORT, and rewrites the GID of the client's RDMA TEST to GID, as a
host that reaches the agent without a token would to aim its NIC at a
third address. Prints the agent's answer to that TEST ("ERROR: ..." or
"TEST_ACK") and exits."""
import os
import socket
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from ixframe import ERROR, TEST, TEST_ACK, frame, recv  # noqa: E402


def main():
    port, host, aport, gid = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", port))
    ls.listen(1)
    ls.settimeout(60)
    print("listening on %d" % port, flush=True)
    c, _ = ls.accept()
    a = socket.create_connection((host, aport), timeout=60)
    while True:
        t, body = recv(c)
        if t is None:
            print("the client left")
            return 1
        if t == TEST and body.get("kind") == "rdma":
            body["rdma"]["gid"] = gid
        a.sendall(frame(t, body))
        rt, rbody = recv(a)
        if rt is None:
            print("the agent closed the connection")
            return 1
        c.sendall(frame(rt, rbody))
        if t == TEST:
            print("ERROR: " + str(rbody.get("error", rbody)) if rt == ERROR else
                  "TEST_ACK" if rt == TEST_ACK else "type %d" % rt)
            return 0


sys.exit(main())
