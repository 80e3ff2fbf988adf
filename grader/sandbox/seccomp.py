"""The seccomp filter bwrap installs on the zygote and, by inheritance, on every job.

The filter allows by default (numpy and CPython use a wide, version-dependent set of
syscalls) and refuses with EPERM the calls that widen the attack surface or break the
isolation: namespaces and mounts, tracing other processes, kernel keyrings, BPF, io_uring,
module loading, file watches (inotify, dnotify) and locks on what slots share, SysV/POSIX IPC (whose
objects would outlive a job inside the slot's IPC namespace and leak into the next learner's job),
memory the address-space limit does not count, sockets, and terminal injection. Calls that
tune a process's limits or scheduling are allowed on the caller only: aimed at the zygote (the
same uid, PID 1), they would carry over into every later job of the slot.

Each job adds a second filter (build_job_filter) once the runner has made its session: no new
session or process group, so the job stays one scheduler autogroup and one group to kill.
"""

from __future__ import annotations

import errno
import tempfile
import termios
from typing import Any

from .results import SandboxUnavailable

DENIED_SYSCALLS = (
    # Namespaces, mounts and root changes: the sandbox's whole shape must stay fixed.
    "mount", "umount2", "pivot_root", "chroot", "unshare", "setns",
    "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
    # Reading or writing other processes (same uid inside the slot).
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
    # Kernel attack surface nobody here needs.
    "keyctl", "add_key", "request_key", "bpf", "perf_event_open", "userfaultfd",
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
    "swapon", "swapoff", "reboot", "acct", "syslog", "quotactl", "personality",
    "name_to_handle_at", "open_by_handle_at", "fanotify_init", "lookup_dcookie",
    "uselib", "vhangup", "modify_ldt", "settimeofday", "clock_settime", "clock_adjtime",
    "adjtimex",
    # Every slot binds the same runtime: a watch on it would show what another learner's job opens.
    "inotify_init", "inotify_init1", "inotify_add_watch",
    # Locks on the files every slot binds (the runtime, the libraries, /dev/null) are seen from every
    # other slot: one job would signal to another by locking or not. fcntl's locks are below.
    "flock",
    # Page-cache state of shared files is another such signal: cachestat reads it, fadvise evicts it.
    "cachestat", "fadvise64",
    # Memory that RLIMIT_AS does not count (grader/sandbox/README.md: calls that create memory):
    # anonymous files, which also sidestep the tmpfs size cap, and secret memory, which after
    # munmap counts nowhere.
    "memfd_create", "memfd_secret",
    # Kernel AIO: each context takes from a host-wide quota (fs.aio-max-nr) other services need.
    "io_setup", "io_destroy", "io_submit", "io_cancel", "io_getevents", "io_pgetevents",
    # Network: numpy needs none, and the net namespace is empty anyway.
    "socket",
    # IPC objects survive the job in the slot's namespace.
    "shmget", "shmat", "shmdt", "shmctl", "msgget", "msgsnd", "msgrcv", "msgctl",
    "semget", "semop", "semtimedop", "semctl",
    "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr",
    # I/O priority can name another process, its group or the whole uid; nothing here needs it.
    "ioprio_set",
)
# Newer than libseccomp 2.5.4's table, so by number (x86_64): a mount tree with attributes (the
# mount API above), and the host's list of namespaces.
DENIED_SYSCALL_NUMBERS = {"open_tree_attr": 467, "listns": 470}
# fcntl commands refused: POSIX and open-file-description locks (and testing for them), leases,
# and F_NOTIFY (dnotify: a watch on /runtime reports other slots' reads, as inotify would).
F_NOTIFY = 1026
DENIED_FCNTLS = {"F_GETLK": 5, "F_SETLK": 6, "F_SETLKW": 7, "F_OFD_GETLK": 36, "F_OFD_SETLK": 37,
                 "F_OFD_SETLKW": 38, "F_SETLEASE": 1024, "F_GETLEASE": 1025, "F_NOTIFY": F_NOTIFY}
# The job's own filter: the runner has called setsid() by then. A new session would be a new
# scheduler autogroup, a full CPU share per process instead of one for the whole job.
JOB_DENIED_SYSCALLS = ("setsid", "setpgid")
# Calls whose first argument names the process they change; pid 0 (the caller) is what glibc's
# setrlimit and Python's os.sched_setaffinity(0, ...) pass. Any other pid is refused.
SELF_ONLY_SYSCALLS = ("prlimit64", "sched_setaffinity", "sched_setscheduler", "sched_setparam",
                      "sched_setattr")
# clone() can create namespaces too; these are its flag bits for that.
CLONE_NAMESPACE_FLAGS = (
    0x00020000,  # CLONE_NEWNS
    0x02000000,  # CLONE_NEWCGROUP
    0x04000000,  # CLONE_NEWUTS
    0x08000000,  # CLONE_NEWIPC
    0x10000000,  # CLONE_NEWUSER
    0x20000000,  # CLONE_NEWPID
    0x40000000,  # CLONE_NEWNET
)
TIOCLINUX = 0x541C
DENIED_IOCTLS = (termios.TIOCSTI, TIOCLINUX)


def _load_binding() -> Any:
    try:
        import pyseccomp  # type: ignore[import-untyped]
    except (ImportError, OSError) as exc:
        raise SandboxUnavailable(
            "the seccomp binding is missing: pip install pyseccomp==0.1.2 "
            f"(and apt-get install libseccomp2) ({exc})"
        ) from None
    return pyseccomp


def build_filter() -> bytes:
    """Compile the filter to raw BPF bytes for `bwrap --seccomp FD`."""
    sc = _load_binding()
    flt = sc.SyscallFilter(defaction=sc.ALLOW)
    deny = sc.ERRNO(errno.EPERM)
    for name in DENIED_SYSCALLS:
        flt.add_rule(deny, name)
    for number in DENIED_SYSCALL_NUMBERS.values():
        flt.add_rule(deny, number)
    for command in DENIED_FCNTLS.values():
        # The kernel reads cmd as 32 bits: compare only those, as for ioctl below.
        flt.add_rule(deny, "fcntl", sc.Arg(1, sc.MASKED_EQ, 0xFFFFFFFF, command))
    for name in SELF_ONLY_SYSCALLS:
        flt.add_rule(deny, name, sc.Arg(0, sc.NE, 0))
    # setpriority(which, who, nice): only (PRIO_PROCESS = 0, 0), the caller; a user- or
    # group-wide call would reach the zygote too.
    flt.add_rule(deny, "setpriority", sc.Arg(0, sc.NE, 0))
    flt.add_rule(deny, "setpriority", sc.Arg(1, sc.NE, 0))
    for flag in CLONE_NAMESPACE_FLAGS:
        flt.add_rule(deny, "clone", sc.Arg(0, sc.MASKED_EQ, flag, flag))
    # clone3 passes its flags in memory, where BPF cannot look; ENOSYS makes libc fall
    # back to clone(), whose flags are checked above.
    flt.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    for request in DENIED_IOCTLS:
        # Compare only the low 32 bits: the kernel ignores the upper half of the request.
        flt.add_rule(deny, "ioctl", sc.Arg(1, sc.MASKED_EQ, 0xFFFFFFFF, request))
    return _export(flt)


def build_job_filter() -> bytes:
    """The filter each job's runner adds after its own setsid(): raw BPF bytes for PR_SET_SECCOMP."""
    sc = _load_binding()
    flt = sc.SyscallFilter(defaction=sc.ALLOW)
    for name in JOB_DENIED_SYSCALLS:
        flt.add_rule(sc.ERRNO(errno.EPERM), name)
    return _export(flt)


def _export(flt: Any) -> bytes:
    with tempfile.TemporaryFile() as sink:
        flt.export_bpf(sink)
        sink.seek(0)
        program = sink.read()
    if not program or len(program) % 8:
        raise SandboxUnavailable("libseccomp produced an empty or malformed BPF program")
    return program
