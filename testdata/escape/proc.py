#!/usr/bin/python3
"""proc.py OP ARG... — one attack on guard itself, the terminal, the
keyring or the network, run inside the sandbox by the sandbox package
tests. Prints "ok" (or what it read) or the errno name, and exits 0 or 1.
Only 127.0.0.1 ports and keys the test owns are used."""
import ctypes
import errno
import fcntl
import os
import platform
import resource
import socket
import struct
import sys
import termios

libc = ctypes.CDLL(None, use_errno=True)
KEYCTL_SEARCH = 10
KEYCTL_READ = 11
KEY_SPEC_SESSION_KEYRING = -3
MSG_FASTOPEN = 0x20000000
SYSCALLS = {
    "x86_64": {"tkill": 200, "tgkill": 234, "rt_tgsigqueueinfo": 297, "rt_sigqueueinfo": 129,
               "pidfd_send_signal": 424, "pidfd_open": 434},
    "aarch64": {"tkill": 130, "tgkill": 131, "rt_tgsigqueueinfo": 240, "rt_sigqueueinfo": 138,
                "pidfd_send_signal": 424, "pidfd_open": 434},
}


def check(r):
    if r < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    return r


def target(arg):
    """The pid an attack aims at: ARG, or with "child" a child of this
    process's own (in the sandbox's domain: the control)."""
    if arg != "child":
        return int(arg)
    pid = os.fork()
    if pid == 0:
        import time
        time.sleep(30)
        os._exit(0)
    return pid


def attempt(op, args):
    if op == "tiocsti":
        # Type a command into the terminal guard reads its prompts from.
        for c in args[0].encode():
            fcntl.ioctl(0, termios.TIOCSTI, bytes([c]))
    elif op == "tiocsetd":
        # Switch guard's terminal to another line discipline (ARG): the
        # null one (27) drops every byte typed, so the user's shell and
        # guard's next prompt read nothing; others are kernel protocol
        # drivers, loaded on demand, once paths to root.
        fcntl.ioctl(0, termios.TIOCSETD, struct.pack("i", int(args[0])))
    elif op == "tiocexcl":
        # Put guard's terminal in exclusive mode, which outlasts the run:
        # no process without CAP_SYS_ADMIN opens it again (EBUSY), guard's
        # next prompt (on /dev/tty) included.
        fcntl.ioctl(0, termios.TIOCEXCL)
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
    elif op == "sysv-shm":
        # Read, then overwrite, a System V shared memory segment of a
        # process outside the sandbox (same user): not a file, so
        # Landlock never sees it.
        libc.shmat.restype = ctypes.c_void_p
        shmid = check(libc.shmget(int(args[0]), 0, 0))
        addr = libc.shmat(shmid, None, 0)
        if addr in (None, ctypes.c_void_p(-1).value):
            check(-1)
        print(ctypes.string_at(addr, len(args[1])).decode(errors="replace"))
        ctypes.memmove(addr, args[1].encode(), len(args[1]))
    elif op == "sysv-msg":
        # Send into a System V message queue a process outside reads.
        qid = check(libc.msgget(int(args[0]), 0))
        body = args[1].encode()
        msg = ctypes.create_string_buffer(8 + len(body))
        ctypes.memmove(ctypes.addressof(msg), (1).to_bytes(8, "little"), 8)
        ctypes.memmove(ctypes.addressof(msg) + 8, body, len(body))
        check(libc.msgsnd(qid, msg, len(body), 0o4000))  # IPC_NOWAIT
    elif op == "mqueue":
        # Send into a POSIX message queue (mq_open: /dev/mqueue of the
        # IPC namespace, not a path the command names).
        rt = ctypes.CDLL("librt.so.1", use_errno=True)
        q = check(rt.mq_open(args[0].encode(), os.O_WRONLY | os.O_NONBLOCK))
        body = args[1].encode()
        check(rt.mq_send(q, body, len(body), 0))
    elif op == "ptrace-attach":
        # Attach to guard (outside the sandbox's domain): its memory
        # holds the environment it dropped, its descriptors the audit log.
        check(libc.ptrace(16, target(args[0]), None, None))  # PTRACE_ATTACH
    elif op == "pidfd-getfd":
        # Take a descriptor of guard's (the audit log, the plan pipe).
        libc.syscall.restype = ctypes.c_long
        pidfd = check(libc.syscall(434, target(args[0]), 0))  # pidfd_open
        for fd in range(0, 64):
            got = libc.syscall(438, pidfd, fd, 0)  # pidfd_getfd
            if got >= 0:
                print("took " + os.readlink("/proc/self/fd/%d" % got))
                return
            e = ctypes.get_errno()
            if e != errno.EBADF:
                raise OSError(e, os.strerror(e))
        raise OSError(errno.EBADF, "no descriptor")
    elif op == "vm-read":
        # process_vm_readv of guard's stack: its memory without ptrace.
        class iovec(ctypes.Structure):
            _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
        pid = target(args[0])
        try:
            with open("/proc/%d/maps" % pid) as f:
                start = int(f.readline().split("-")[0], 16)
        except OSError:
            start = 0x10000  # unmapped: EFAULT if the call is allowed
        buf = ctypes.create_string_buffer(64)
        local = iovec(ctypes.cast(buf, ctypes.c_void_p), 64)
        remote = iovec(start, 64)
        libc.process_vm_readv.restype = ctypes.c_ssize_t
        check(libc.process_vm_readv(pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0))
    elif op == "opath-link":
        # An O_PATH descriptor of a hidden file (Landlock checks opens
        # for reading and writing, O_PATH is neither), then a name for it
        # in a writable tree through /proc/self/fd.
        fd = os.open(args[0], os.O_PATH)
        check(libc.linkat(-100, b"/proc/self/fd/%d" % fd, -100, args[1].encode(), 0x400))  # AT_SYMLINK_FOLLOW
        print(open(args[1]).read().strip())
    elif op == "opath-reopen":
        # The same descriptor opened again for reading.
        fd = os.open(args[0], os.O_PATH)
        print(open("/proc/self/fd/%d" % fd).read().strip())
    elif op == "opath-chmod":
        # Its mode changed through the descriptor: guard's audit log or
        # approvals made unreadable, or readable by everyone.
        fd = os.open(args[0], os.O_PATH)
        os.chmod("/proc/self/fd/%d" % fd, int(args[1], 8))
    elif op == "memfd-exec":
        # A program the sandbox never saw as a file: a copy of cat in
        # memory, executed, reading a hidden file.
        libc.syscall.restype = ctypes.c_long
        mfd = check(libc.syscall(319, b"x", 0))  # memfd_create
        with open("/bin/cat", "rb") as src:
            os.write(mfd, src.read())
        pid = os.fork()
        if pid == 0:
            os.execve("/proc/self/fd/%d" % mfd, ["cat", args[0]], {})
        _, st = os.waitpid(pid, 0)
        if os.waitstatus_to_exitcode(st) != 0:
            raise OSError(errno.EACCES, "cat failed")
    elif op == "sigio-kill":
        # No kill(2) at all: make the kernel send SIGKILL to the target
        # as the owner of a pipe that becomes readable (F_SETOWN and
        # F_SETSIG), then make it readable. The kernel drops a signal it
        # may not send; the target's death is the effect.
        pid = target(args[0])
        r, w = os.pipe()
        fcntl.fcntl(r, fcntl.F_SETOWN, pid)
        fcntl.fcntl(r, 10, 9)  # F_SETSIG SIGKILL
        fcntl.fcntl(r, fcntl.F_SETFL, os.O_ASYNC | os.O_NONBLOCK)
        os.write(w, b"x")
        if args[0] == "child":
            _, st = os.waitpid(pid, 0)
            if not os.WIFSIGNALED(st):
                raise OSError(errno.EPERM, "the child was not killed")
    elif op == "pidfd-kill":
        # SIGKILL through a pidfd rather than a pid.
        libc.syscall.restype = ctypes.c_long
        pidfd = check(libc.syscall(434, target(args[0]), 0))  # pidfd_open
        check(libc.syscall(424, pidfd, 9, None, 0))  # pidfd_send_signal
    elif op == "reach-helper":
        # The sandbox helper's memory through each of its threads (one
        # of them is in the command's Landlock domain, and shares its
        # memory with the others, which no domain confines): ptrace
        # attach, process_vm_readv, and process_vm_writev of the bytes
        # just read (no change, should it pass). Prints NAME=RESULT for
        # each.
        class iovec(ctypes.Structure):
            _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
        helper = os.getppid()
        start = 0x10000
        try:
            with open("/proc/%d/maps" % helper) as f:
                for line in f:
                    if line.split()[1].startswith("rw"):
                        start = int(line.split("-")[0], 16)
                        break
        except OSError:
            pass
        libc.process_vm_readv.restype = ctypes.c_ssize_t
        libc.process_vm_writev.restype = ctypes.c_ssize_t
        out = []
        for tid in sorted(int(t) for t in os.listdir("/proc/%d/task" % helper)):
            buf = ctypes.create_string_buffer(8)
            local = iovec(ctypes.cast(buf, ctypes.c_void_p), 8)
            remote = iovec(start, 8)
            for name, f in (("attach", lambda: libc.ptrace(16, tid, None, None)),
                            ("readv", lambda: libc.process_vm_readv(tid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)),
                            ("writev", lambda: libc.process_vm_writev(tid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0))):
                r = f()
                if r < 0:
                    e = ctypes.get_errno()
                    out.append(name + "=" + errno.errorcode.get(e, str(e)))
                else:
                    out.append(name + "=ok")
        print(" ".join(out))
    elif op == "kill-helper":
        # The sandbox helper (the parent) watches the command and kills
        # what it leaves; it shares the command's Landlock domain.
        os.kill(os.getppid(), 9)
    elif op == "signal-helper":
        # Every way to aim SIGKILL (or SIGSTOP) at the sandbox helper
        # (ARG, or the parent): its pid, each of its threads by id (one of them is
        # in the command's Landlock domain), pidfds of both, SIGIO for
        # an owner naming a thread. Prints NAME=RESULT for each; one
        # that is not refused kills the helper, and the run shows it.
        nr = SYSCALLS[platform.machine()]
        libc.syscall.restype = ctypes.c_long
        helper = int(args[0]) if args else os.getppid()
        out = []

        def attempt_one(name, f):
            try:
                f()
                out.append(name + "=ok")
            except OSError as e:
                out.append(name + "=" + errno.errorcode.get(e.errno, str(e.errno)))

        def pidfd_signal(pid, flags):
            fd = check(libc.syscall(nr["pidfd_open"], pid, flags))
            check(libc.syscall(nr["pidfd_send_signal"], fd, 9, None, 0))

        def queueinfo():
            info = ctypes.create_string_buffer(128)
            ctypes.memmove(info, (ctypes.c_int * 3)(9, 0, -1), 12)  # SIGKILL, SI_QUEUE
            return info

        def sigqueue(tid):
            check(libc.syscall(nr["rt_tgsigqueueinfo"], helper, tid, 9, queueinfo()))

        def setown_ex(tid):
            r, _ = os.pipe()
            owner = (ctypes.c_int * 2)(0, tid)  # F_OWNER_TID
            check(libc.fcntl(r, 15, owner))  # F_SETOWN_EX

        attempt_one("kill", lambda: os.kill(helper, 9))
        attempt_one("stop", lambda: os.kill(helper, 19))
        attempt_one("pidfd", lambda: pidfd_signal(helper, 0))
        for tid in sorted(int(t) for t in os.listdir("/proc/%d/task" % helper)):
            attempt_one("kill-tid", lambda t=tid: os.kill(t, 9))
            attempt_one("sigqueue-tid", lambda t=tid: check(libc.syscall(nr["rt_sigqueueinfo"], t, 9, queueinfo())))
            attempt_one("tgkill", lambda t=tid: check(libc.syscall(nr["tgkill"], helper, t, 9)))
            attempt_one("tkill", lambda t=tid: check(libc.syscall(nr["tkill"], t, 9)))
            attempt_one("sigqueue", lambda t=tid: sigqueue(t))
            attempt_one("pidfd-thread", lambda t=tid: pidfd_signal(t, os.O_EXCL))  # PIDFD_THREAD
            attempt_one("setown-ex", lambda t=tid: setown_ex(t))
        print(" ".join(out))
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
