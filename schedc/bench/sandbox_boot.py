"""The sandbox's init process: run by :mod:`schedc.bench.sandbox` inside fresh namespaces.

``unshare --net --mount --pid --fork --kill-child [--map-root-user] python -I sandbox_boot.py CONFIG``
starts this script as PID 1 of a new PID namespace, with a new mount namespace and a network
namespace that has only a loopback device that is down. It reads the program from stdin, then

1. builds a **minimal filesystem** and makes it the root (``pivot_root``; the host's root is
   detached): an empty tmpfs holding, read-only, ``/usr`` (the C library, ``/bin`` and ``/lib``
   as the host's symlinks into it), ``/etc/ld.so.cache``, the interpreter's prefix, its virtual
   environment and its ``site-packages`` folders, each bound at its own path (opened before
   anything is mounted, so a virtual environment under ``/tmp`` works too); a ``/dev`` of
   ``null``, ``zero``, ``full``, ``random``, ``urandom`` and a private ``/dev/shm``; a fresh
   ``/proc`` (only the sandbox's processes); and a private size-limited ``/tmp`` whose ``work``
   folder is the program's. Nothing else of the host — its project folders, ``/home``, ``/root``,
   ``/run``, ``/etc/passwd``, other mounts — exists there;
2. writes the program to ``/tmp/work/main.py`` and forks: the child sets the resource limits,
   drops to ``nobody`` when started as root, installs a **seccomp filter**
   (:func:`seccomp_filter`) and executes the program with a clean environment and ``/dev/null``
   as stdin;
3. waits for the program and exits with its status (128 + signal when killed). When this
   process ends, the kernel kills every process left in the PID namespace (forked children,
   daemons that called ``setsid``), so nothing outlives the run.

The seccomp filter (libseccomp through ``pyseccomp``) lets every system call through except those
no solver needs and a side door would: ``socket`` for every address family (``socketpair`` stays:
it reaches nothing outside), new namespaces (``unshare``, ``setns``, ``clone`` with a ``CLONE_NEW*``
flag; ``clone3``, whose flags a filter cannot read, answers ``ENOSYS`` so the C library falls back
to ``clone``), mounts and root changes, ``ptrace`` and cross-process memory access, keyrings,
``bpf``, ``perf_event_open``, ``userfaultfd``, ``io_uring`` (which can open sockets without the
``socket`` call), module and kexec loading, ``reboot``, swap, clock setting. Those fail with
``EPERM``; a system call of another architecture (a 32-bit ``int 0x80`` call on x86-64, the x32
ABI) kills the program. Without ``pyseccomp`` (or libseccomp) the sandbox does not start, and
:func:`schedc.bench.sandbox.require_isolation` refuses to run programs.

Standard library only, but for ``pyseccomp``.
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import sys

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND, MS_REC = 1, 2, 4, 8, 32, 4096, 16384
MS_PRIVATE = 1 << 18
#: statvfs flags → the mount flags a read-only remount must keep (a user namespace may not drop them).
KEPT_FLAGS = {1: MS_RDONLY, 2: MS_NOSUID, 4: MS_NODEV, 8: MS_NOEXEC, 1024: 1024, 2048: 2048, 4096: 1 << 21}
MNT_DETACH = 2
NOBODY = 65534
STAGE = "/tmp"  # where the new root is built (a tmpfs over it, in this mount namespace only)
DEVICES = ("null", "zero", "full", "random", "urandom")
TOP_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
LIMITS = {"cpu_seconds": resource.RLIMIT_CPU, "memory_bytes": resource.RLIMIT_AS, "file_bytes": resource.RLIMIT_FSIZE,
          "processes": resource.RLIMIT_NPROC, "open_files": resource.RLIMIT_NOFILE}
#: System calls the program may not make (EPERM); names this libseccomp or machine lacks are skipped.
DENIED = ("socket", "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree",
          "fsopen", "fsmount", "fsconfig", "fspick", "mount_setattr", "ptrace", "process_vm_readv",
          "process_vm_writev", "pidfd_getfd", "keyctl", "add_key", "request_key", "bpf", "perf_event_open",
          "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register", "kexec_load", "kexec_file_load",
          "init_module", "finit_module", "delete_module", "reboot", "swapon", "swapoff", "acct", "quotactl",
          "iopl", "ioperm", "open_by_handle_at", "name_to_handle_at", "lookup_dcookie", "syslog", "vhangup",
          "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "sethostname", "setdomainname")
#: CLONE_NEWTIME, NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET: clone may create none of them.
NAMESPACE_FLAGS = (0x80, 0x20000, 0x2000000, 0x4000000, 0x8000000, 0x10000000, 0x20000000, 0x40000000)


def _encode(text: str | None) -> bytes | None:
    return None if text is None else text.encode()


def _mount(libc: ctypes.CDLL, source: str | None, target: str, kind: str | None, flags: int,
           data: str | None = None) -> None:
    """mount(2), raising OSError on failure."""
    if libc.mount(_encode(source), _encode(target), _encode(kind), flags, _encode(data)) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"mount {target}: {os.strerror(errno)}")


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def outermost(paths: list[str]) -> list[str]:
    """The existing ``paths`` (resolved) that lie inside no other of them, sorted: what must be bound."""
    found = sorted({os.path.realpath(p) for p in paths if os.path.exists(p)})
    kept: list[str] = []
    for path in found:
        if not any(_inside(path, k) for k in kept):
            kept.append(path)
    return kept


def _bind(libc: ctypes.CDLL, fd: int, target: str, read_only: bool) -> None:
    """Bind the file or folder open as ``fd`` at ``target`` (created), read-only unless told otherwise."""
    if os.path.isdir(f"/proc/self/fd/{fd}"):
        os.makedirs(target, mode=0o755, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), mode=0o755, exist_ok=True)
        with open(target, "ab"):
            pass
    _mount(libc, f"/proc/self/fd/{fd}", target, None, MS_BIND | MS_REC)
    if read_only:
        kept = sum(flag for bit, flag in KEPT_FLAGS.items() if os.statvfs(target).f_flag & bit)
        _mount(libc, None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | kept)


def _pivot_root(libc: ctypes.CDLL, new_root: str) -> None:
    """Make ``new_root`` the root and detach the old one (pivot_root(2) has no C library wrapper)."""
    import pyseccomp

    number = pyseccomp.resolve_syscall(pyseccomp.Arch.NATIVE, "pivot_root")
    old = os.path.join(new_root, ".old")
    os.mkdir(old)
    if libc.syscall(number, _encode(new_root), _encode(old)) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"pivot_root: {os.strerror(errno)}")
    os.chdir("/")
    if libc.umount2(b"/.old", MNT_DETACH) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"umount the old root: {os.strerror(errno)}")
    os.rmdir("/.old")


def build_root(tmpfs_bytes: int, binds: list[str]) -> None:
    """Make the minimal filesystem of the module docstring the root of this mount namespace."""
    libc = ctypes.CDLL(None, use_errno=True)
    _mount(libc, None, "/", None, MS_REC | MS_PRIVATE)
    held = [(path, os.open(path, os.O_PATH)) for path in outermost(binds)]  # before anything is covered
    devices = [(name, os.open(f"/dev/{name}", os.O_PATH)) for name in DEVICES if os.path.exists(f"/dev/{name}")]
    links = [(path, os.readlink(path)) for path in TOP_LINKS if os.path.islink(path)]
    root = STAGE
    _mount(libc, "tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=4m,mode=755")
    os.mkdir(f"{root}/tmp")
    _mount(libc, "tmpfs", f"{root}/tmp", "tmpfs", MS_NOSUID | MS_NODEV, f"size={tmpfs_bytes},mode=1777")
    for path, fd in held:
        _bind(libc, fd, root + path, read_only=True)
        os.close(fd)
    for path, target in links:
        if not os.path.lexists(root + path):
            os.symlink(target, root + path)
    os.mkdir(f"{root}/dev")
    _mount(libc, "tmpfs", f"{root}/dev", "tmpfs", MS_NOSUID, "size=64k,mode=755")
    for name, fd in devices:
        _bind(libc, fd, f"{root}/dev/{name}", read_only=False)
        os.close(fd)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
                         ("stderr", "/proc/self/fd/2")):
        os.symlink(target, f"{root}/dev/{name}")
    os.mkdir(f"{root}/dev/shm")
    _mount(libc, "tmpfs", f"{root}/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, f"size={tmpfs_bytes},mode=1777")
    os.mkdir(f"{root}/proc")
    _mount(libc, "proc", f"{root}/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    _pivot_root(libc, root)
    _mount(libc, None, "/", None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)


def seccomp_filter() -> object:
    """The seccomp filter of the module docstring (a ``pyseccomp.SyscallFilter``, loaded by the child)."""
    import errno

    import pyseccomp as sc

    rules = sc.SyscallFilter(sc.ALLOW)
    rules.set_attr(sc.Attr.ACT_BADARCH, sc.KILL_PROCESS)
    for name in DENIED:
        try:
            rules.add_rule(sc.ERRNO(errno.EPERM), name)
        except (OSError, ValueError, RuntimeError):
            continue  # a system call this machine does not have
    for flag in NAMESPACE_FLAGS:
        rules.add_rule(sc.ERRNO(errno.EPERM), "clone", sc.Arg(0, sc.MASKED_EQ, flag, flag))
    rules.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    return rules


def limit_and_drop(limits: dict[str, int], drop: bool) -> None:
    """Set the resource limits (soft = hard; no core files) and become ``nobody`` when root."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    for key, which in LIMITS.items():
        resource.setrlimit(which, (limits[key], limits[key]))
    if drop:
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)


def main() -> int:
    """Set up, run the program as a child, wait for it, return its status."""
    config = json.loads(sys.argv[1])
    program = sys.stdin.buffer.read()
    drop = os.getuid() == 0 and not config["user_namespace"]
    rules = seccomp_filter()  # made (and pyseccomp loaded) while the host's files are still reachable
    build_root(config["tmpfs_bytes"], config["binds"])
    os.makedirs("/tmp/work", mode=0o700)
    with open("/tmp/work/main.py", "wb") as handle:
        handle.write(program)
    if drop:
        os.chown("/tmp/work", NOBODY, NOBODY)
        os.chown("/tmp/work/main.py", NOBODY, NOBODY)
    child = os.fork()
    if child == 0:
        try:
            os.chdir("/tmp/work")
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)
            limit_and_drop(config["limits"], drop)
            rules.load()  # type: ignore[attr-defined]
            os.execve(config["python"], [config["python"], "-I", "main.py"], config["env"])
        except BaseException as exc:  # noqa: BLE001 - report any setup failure on stderr, never run the program
            os.write(2, f"sandbox: {exc}\n".encode())
        os._exit(125)
    _, status = os.waitpid(child, 0)
    return os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (OSError, ImportError, RuntimeError) as exc:  # the sandbox cannot be built: say why, run nothing
        os.write(2, f"sandbox: {exc}\n".encode())
        sys.exit(125)
