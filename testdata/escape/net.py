#!/usr/bin/python3
"""net.py OP ARG — one network or IPC escape attempt, run inside the
sandbox by the sandbox package tests. Prints "ok" or the errno name and
exits 0 or 1. Only 127.0.0.1 and abstract sockets the test owns are
used; every call is bounded by a short timeout."""
import ctypes
import errno
import os
import socket
import struct
import sys
import time

IPPROTO_MPTCP = 262


def attempt(op, arg):
    if op == "tcp-connect":
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.settimeout(2)
        s.connect(("127.0.0.1", int(arg)))
        s.sendall(b"pwned")
        s.close()
    elif op == "tcp-bind":
        # Bind the port the test names, then stay a moment so the test
        # can check nobody listens there.
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            s.bind(("127.0.0.1", int(arg)))
            s.listen(1)
        finally:
            print("attempted", flush=True)
            time.sleep(1)
    elif op == "udp-send":
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.sendto(b"pwned", ("127.0.0.1", int(arg)))
        s.close()
    elif op == "udp6-socket":
        socket.socket(socket.AF_INET6, socket.SOCK_DGRAM).close()
    elif op == "raw-socket":
        socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP).close()
    elif op == "sctp-socket":
        socket.socket(socket.AF_INET, socket.SOCK_STREAM, 132).close()
    elif op == "packet-socket":
        socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0).close()
    elif op == "mptcp-connect":
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, IPPROTO_MPTCP)
        s.settimeout(2)
        s.connect(("127.0.0.1", int(arg)))
        s.sendall(b"pwned")
        s.close()
    elif op == "abstract-connect":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(2)
        s.connect("\0" + arg)
        s.sendall(b"pwned")
        s.close()
    elif op == "unix-connect":
        # A pathname socket of a daemon outside the sandbox (the test's
        # own listener): docker.sock, tmux, the session bus.
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(2)
        s.connect(arg)
        s.sendall(b"pwned")
        s.close()
    elif op == "unix-connect-later":
        # ARG is "PATH READY GO": a daemon the user starts after the run
        # began binds PATH. Say "ready" on the READY fifo, wait for the
        # test's word on GO (it has bound PATH by then), then connect.
        path, ready, go = arg.split(" ")
        with open(ready, "w") as f:
            f.write("ready\n")
        with open(go) as f:
            f.read()
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(2)
        s.connect(path)
        s.sendall(b"pwned")
        s.close()
    elif op == "netlink-send":
        # ARG is "PROTOCOL PORTID": a process outside the run listens
        # on a netlink socket of that family with that port id.
        proto, portid = (int(x) for x in arg.split(" "))
        s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, proto)
        s.bind((0, 0))
        # A netlink message header (length, type, flags, seq, pid) and
        # its payload.
        body = b"pwned-by-netlink"
        s.sendto(struct.pack("=IHHII", 16 + len(body), 0x10, 0, 1, 0) + body, (portid, 0))
        s.close()
    elif op == "netlink-route":
        # What getaddrinfo and `ip addr` do: dump the addresses
        # (RTM_GETADDR, NLM_F_REQUEST|NLM_F_DUMP) and read the answer.
        s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
        s.settimeout(2)
        s.bind((0, 0))
        s.send(struct.pack("=IHHIIBBBBI", 24, 22, 0x301, 1, 0, socket.AF_UNSPEC, 0, 0, 0, 0))
        if len(s.recv(65536)) < 16:
            raise OSError(errno.EIO, "short netlink answer")
        s.close()
    elif op == "io-uring":
        libc = ctypes.CDLL(None, use_errno=True)
        params = ctypes.create_string_buffer(120)
        fd = libc.syscall(425, 4, params)
        if fd < 0:
            e = ctypes.get_errno()
            raise OSError(e, os.strerror(e))
        os.close(fd)
    else:
        print("net.py: unknown op " + op, file=sys.stderr)
        sys.exit(2)


def main():
    try:
        attempt(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "")
    except OSError as e:
        print(errno.errorcode.get(e.errno, str(e.errno)) if e.errno else str(e))
        sys.exit(1)
    print("ok")


main()
