#!/usr/bin/python3
"""proc.py OP ARG... — one attack on guard itself, the terminal, the
keyring or the network, run inside the sandbox by the sandbox package
tests. Prints "ok" (or what it read) or the errno name, and exits 0 or 1.
Only 127.0.0.1 ports and keys the test owns are used."""
import ctypes
import errno
import fcntl
import os
import resource
import socket
import sys
import termios

libc = ctypes.CDLL(None, use_errno=True)
KEYCTL_SEARCH = 10
KEYCTL_READ = 11
KEY_SPEC_SESSION_KEYRING = -3
MSG_FASTOPEN = 0x20000000


def check(r):
    if r < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    return r


def attempt(op, args):
    if op == "tiocsti":
        # Type a command into the terminal guard reads its prompts from.
        for c in args[0].encode():
            fcntl.ioctl(0, termios.TIOCSTI, bytes([c]))
    elif op == "prlimit-parent":
        # Leave guard (the parent) no descriptors and no file size, so it
        # can neither open nor write what it wants to restore.
        ppid = int(args[0]) if args else os.getppid()
        resource.prlimit(ppid, resource.RLIMIT_NOFILE, (0, 0))
        resource.prlimit(ppid, resource.RLIMIT_FSIZE, (0, 0))
    elif op == "keyctl-read":
        # Read a key from the session keyring the sandbox inherited.
        libc.syscall.restype = ctypes.c_long
        kid = check(libc.syscall(250, KEYCTL_SEARCH, KEY_SPEC_SESSION_KEYRING,
                                 b"user", args[0].encode(), 0))
        buf = ctypes.create_string_buffer(256)
        n = check(libc.syscall(250, KEYCTL_READ, kid, buf, 256))
        print(buf.raw[:n].decode())
    elif op == "tcp-fastopen":
        # TCP Fast Open: connect and send in one sendto(2), no connect(2).
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.settimeout(2)
        s.sendto(b"pwned", MSG_FASTOPEN, ("127.0.0.1", int(args[0])))
        s.close()
    else:
        print("proc.py: unknown op " + op, file=sys.stderr)
        sys.exit(2)


def main():
    try:
        attempt(sys.argv[1], sys.argv[2:])
    except OSError as e:
        print(errno.errorcode.get(e.errno, str(e.errno)) if e.errno else str(e))
        sys.exit(1)
    print("ok")


main()
