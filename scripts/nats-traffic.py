#!/usr/bin/env python3
"""What a Scoop cluster says on NATS, by kind of subject, for SECONDS.

    scripts/nats-traffic.py SECONDS [nats://HOST:PORT]

Subscribes to every subject (`>`) with the plain NATS text protocol (no client library) and
prints, per kind of subject, the messages and payload bytes delivered: the changes per audience
(`table.view.spectators`, `table.view.seatN`), the frames for one socket (`node.out`), the
commands (`table.cmd`) and their answers (`_INBOX`), the lobby rows. `scripts/load-test.sh`
runs it over its measured window in cluster mode.
"""
import collections
import socket
import sys
import time
from urllib.parse import urlparse


def kind(subject):
    parts = subject.split(".")
    if parts[:2] == ["scoop", "table"] and len(parts) >= 4:
        rest = ["seatN" if p.startswith("seat") else p for p in parts[3:]]
        return "table." + ".".join(rest)
    if parts[:2] == ["scoop", "node"]:
        return "node.out"
    if parts[0] == "_INBOX":
        return "_INBOX (answers)"
    return ".".join(parts[:2])


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 10.0
    url = urlparse(sys.argv[2] if len(sys.argv) > 2 else "nats://127.0.0.1:4222")
    conn = socket.create_connection((url.hostname or "127.0.0.1", url.port or 4222))
    conn.settimeout(1.0)
    conn.sendall(b'CONNECT {"verbose":false,"pedantic":false}\r\nSUB > 1\r\n')
    messages, size = collections.Counter(), collections.Counter()
    buf, end = b"", time.time() + seconds
    while time.time() < end:
        try:
            data = conn.recv(1 << 20)
        except socket.timeout:
            continue
        if not data:
            break
        buf += data
        while True:
            eol = buf.find(b"\r\n")
            if eol < 0:
                break
            line = buf[:eol].decode(errors="replace")
            if line.startswith("MSG "):
                fields = line.split()
                length = int(fields[-1])
                if len(buf) < eol + 2 + length + 2:
                    break
                messages[kind(fields[1])] += 1
                size[kind(fields[1])] += length
                buf = buf[eol + 2 + length + 2:]
                continue
            if line.startswith("PING"):
                conn.sendall(b"PONG\r\n")
            buf = buf[eol + 2:]
    total_m, total_b = sum(messages.values()), sum(size.values())
    print(f"NATS over {seconds:.0f} s: {total_m} messages, {total_b} payload bytes")
    for k in sorted(messages, key=lambda k: -size[k]):
        print(f"  {k:24} {messages[k]:9} messages {size[k]:12} bytes {size[k] / messages[k]:7.0f} B each")


if __name__ == "__main__":
    main()
