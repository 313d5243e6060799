"""ixperf's control framing for the hostile-peer tests (probes/net/proto.h):
a 12-byte header (magic, version, type, length) and a JSON body."""
import json
import struct

MAGIC, VERSION = 0x49585046, 1
HELLO, HELLO_ACK, TEST, TEST_ACK, ATTACH = 1, 2, 3, 4, 5
ERROR = 11
INVENTORY, INVENTORY_REPLY = 18, 19
IFSTATS, IFSTATS_REPLY = 20, 21


def frame(t, body):
    """One frame of type t; body is JSON-encoded unless it is bytes."""
    b = body if isinstance(body, bytes) else json.dumps(body).encode()
    return struct.pack(">IHHI", MAGIC, VERSION, t, len(b)) + b


def recv(s):
    """(type, body) of the next frame, (None, None) at the end of the connection."""
    h = b""
    while len(h) < 12:
        c = s.recv(12 - len(h))
        if not c:
            return None, None
        h += c
    _, _, t, n = struct.unpack(">IHHI", h)
    b = b""
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            break
        b += c
    return t, json.loads(b)


def hello(s):
    """Say HELLO as an unauthenticated client; the agent must answer HELLO_ACK."""
    s.sendall(frame(HELLO, {"host": "hostile", "version": "0", "protocol": 1, "nonce": "00" * 16}))
    t, _ = recv(s)
    assert t == HELLO_ACK, t
