#!/usr/bin/python3
"""Hostile clients of the --metrics endpoint, for the e2e scenario
metrics_hostile (tests/e2e/metrics.sh): for DURATION seconds, at once,
connections held open and idle (more than the server keeps: 24),
garbage, headers too large, a request sent one byte every half second,
and a client that asks for many answers and never reads them; each one
again as soon as the server closes it.  Loopback only; Python's standard
library only.  Prints one line of what the server answered.

Usage: hostile_client.py HOST PORT DURATION
"""

import os
import socket
import sys
import threading
import time

HOST, PORT, DURATION = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
END = time.monotonic() + DURATION
LOCK = threading.Lock()
SEEN = {"connections": 0, "400": 0, "431": 0, "408": 0, "closed": 0,
        "refused": 0}


def count(key):
    with LOCK:
        SEEN[key] += 1


def connect():
    """A connection, or None (counted) if the server does not take it."""
    try:
        s = socket.create_connection((HOST, PORT), timeout=2)
    except OSError:
        count("refused")
        time.sleep(0.05)
        return None
    count("connections")
    return s


def answer(s):
    """The status the server answers on 's' ("" if it closed first)."""
    data = b""
    try:
        while b"\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    except OSError:
        pass
    parts = data.split(b" ")
    return parts[1].decode() if len(parts) > 1 else ""


def holders():
    """24 idle connections, each opened again once the server closes it."""
    conns = []
    while time.monotonic() < END:
        while len(conns) < 24 and time.monotonic() < END:
            s = connect()
            if s:
                s.setblocking(False)
                conns.append(s)
        for s in list(conns):
            try:
                if s.recv(1) == b"":
                    raise OSError
            except BlockingIOError:
                continue
            except OSError:
                pass
            count("closed")
            conns.remove(s)
            s.close()
        time.sleep(0.05)
    for s in conns:
        s.close()


def garbage():
    while time.monotonic() < END:
        s = connect()
        if not s:
            continue
        try:
            s.sendall(os.urandom(200).replace(b"\n", b"x") + b"\r\n\r\n")
            status = answer(s)
            if status in ("400", "431"):
                count(status)
        except OSError:
            pass
        s.close()
        time.sleep(0.01)


def huge():
    while time.monotonic() < END:
        s = connect()
        if not s:
            continue
        try:
            s.sendall(b"GET /metrics HTTP/1.1\r\nX: " + b"a" * 100000)
        except OSError:
            pass
        if answer(s) == "431":
            count("431")
        s.close()
        time.sleep(0.1)


def slow():
    while time.monotonic() < END:
        s = connect()
        if not s:
            continue
        try:
            s.sendall(b"GET /metrics HTTP/1.1\r\n")
            s.setblocking(False)
            while time.monotonic() < END:
                s.send(b"X")
                time.sleep(0.5)
                try:
                    data = s.recv(4096)
                    if b" 408 " in data:
                        count("408")
                    if data is not None:
                        break
                except BlockingIOError:
                    pass
        except OSError:
            pass
        s.close()


def never_reads():
    while time.monotonic() < END:
        s = connect()
        if not s:
            continue
        try:
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n" * 200)
        except OSError:
            pass
        # Longer than the server gives it to take an answer.
        time.sleep(min(6, max(0, END - time.monotonic())))
        s.close()


def main():
    threads = [threading.Thread(target=f) for f in
               (holders, garbage, huge, slow, never_reads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("hostile: " + ", ".join("%s %d" % kv for kv in SEEN.items()))


main()
