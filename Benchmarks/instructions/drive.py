#!/usr/bin/env python3
"""Sends an exact number of HTTP/1.1 requests over keep-alive connections and waits for every
answer, so that a server's counters read before and after cover exactly these requests
(scripts/bench-instructions.sh). Unlike wrk it stops at a count, not a duration, and nothing is
left in flight when it returns.

  drive.py PORT CONNECTIONS get PATH COUNT
  drive.py PORT CONNECTIONS post PATH BODYFILE COUNT
  drive.py PORT CONNECTIONS send PATH DATA BODIES COUNT [SKIP]
      ds-bench prepare's files as xrpc-data.lua reads them, from line SKIP + 1 (tokens are single-use)
  drive.py PORT CONNECTIONS publish PATH DATA COUNT [SKIP]
      lines `<token> <JSON body>` (ds-bench chat-load's, xrpc-data.lua's publish mode), from line SKIP + 1

Prints the number of answers and how many were not 2xx; exits 1 if any was not 2xx.
"""
import selectors
import socket
import sys


def requests_for(mode, path, args):
    if mode == "get":
        count = int(args[0])
        request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
        return [request] * count
    if mode == "post":
        body = open(args[0], "rb").read().rstrip(b"\n")
        count = int(args[1])
        request = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                   f"Content-Length: {len(body)}\r\n\r\n").encode() + body
        return [request] * count
    if mode in ("send", "publish"):
        if mode == "send":
            data, count, rest = args[0], int(args[2]), args[3:]
            prefixes = [line.rstrip("\n") for line in open(args[1])]
        else:
            data, count, rest = args[0], int(args[1]), args[2:]
        skip = int(rest[0]) if rest else 0
        out = []
        with open(data) as lines:
            for number, line in enumerate(lines):
                if len(out) == count:
                    break
                if number < skip:
                    continue
                if mode == "send":
                    index, msg_id, token = line.split()
                    body = (prefixes[int(index) - 1] + msg_id + '"}').encode()
                else:
                    token, body = line.rstrip("\n").split(" ", 1)
                    body = body.encode()
                out.append((f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
                            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body)
        if len(out) < count:
            sys.exit(f"drive.py: only {len(out)} prepared requests in {data}")
        return out
    sys.exit(f"drive.py: unknown mode {mode}")


class Connection:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b""

    def response_complete(self):
        """Returns the status of a complete response at the buffer's start, consuming it, or None."""
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0:
            return None
        head = self.buffer[:end].decode("latin-1").split("\r\n")
        length = 0
        for field in head[1:]:
            name, _, value = field.partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip())
        if len(self.buffer) < end + 4 + length:
            return None
        self.buffer = self.buffer[end + 4 + length:]
        return int(head[0].split()[1])


def main():
    port, connections, mode, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
    pending = requests_for(mode, path, sys.argv[5:])
    pending.reverse()
    total = len(pending)
    selector = selectors.DefaultSelector()
    answered = failed = 0
    for _ in range(min(connections, total)):
        connection = Connection(port)
        connection.sock.sendall(pending.pop())
        selector.register(connection.sock, selectors.EVENT_READ, connection)
    while answered < total:
        for key, _ in selector.select():
            connection = key.data
            chunk = connection.sock.recv(1 << 16)
            if not chunk:
                sys.exit("drive.py: the server closed a connection")
            connection.buffer += chunk
            while (status := connection.response_complete()) is not None:
                answered += 1
                if not 200 <= status < 300:
                    failed += 1
                    if failed <= 3:
                        print(f"drive.py: status {status}", file=sys.stderr)
                if pending:
                    connection.sock.sendall(pending.pop())
    print(f"{answered} {failed}")
    sys.exit(1 if failed else 0)


main()
