"""The sandbox's init process: run by :mod:`schedc.bench.sandbox` inside fresh namespaces.

``unshare --net --mount --pid --fork --kill-child [--map-root-user] python -I sandbox_boot.py LIMITS``
starts this script as PID 1 of a new PID namespace, with a new mount namespace and a network
namespace that has only a loopback device that is down. It reads the program from stdin, then

1. makes every mount private and puts empty size-limited tmpfs mounts over the world-writable
   directories (``/tmp``, ``/var/tmp``, ``/dev/shm``, ``/run/lock``) and, when not running as
   root, over ``$HOME``; when it will drop to ``nobody``, makes the interpreter reachable
   (:func:`expose`); mounts a fresh ``/proc`` (only the sandbox's processes are visible);
2. writes the program to ``/tmp/work/main.py`` (its own temporary directory, gone with the
   namespace), and forks: the child sets the resource limits, drops to ``nobody`` when started
   as root, and executes the program with a clean environment and ``/dev/null`` as stdin;
3. waits for the program and exits with its status (128 + signal when killed). When this
   process ends, the kernel kills every process left in the PID namespace (forked children,
   daemons that called ``setsid``), so nothing outlives the run.

Standard library only: it runs before anything else is importable with certainty.
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import stat
import sys

MS_NOSUID, MS_NODEV, MS_BIND, MS_REC, MS_PRIVATE = 2, 4, 4096, 16384, 1 << 18
MNT_DETACH = 2
NOBODY = 65534
SHADOWED = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock")
LIMITS = {"cpu_seconds": resource.RLIMIT_CPU, "memory_bytes": resource.RLIMIT_AS, "file_bytes": resource.RLIMIT_FSIZE,
          "processes": resource.RLIMIT_NPROC, "open_files": resource.RLIMIT_NOFILE}


def _encode(text: str | None) -> bytes | None:
    return None if text is None else text.encode()


def _mount(libc: ctypes.CDLL, source: str | None, target: str, kind: str | None, flags: int,
           data: str | None = None) -> None:
    """mount(2), raising OSError on failure."""
    if libc.mount(_encode(source), _encode(target), _encode(kind), flags, _encode(data)) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"mount {target}: {os.strerror(errno)}")


def _blocking_ancestor(path: str) -> tuple[str, str] | None:
    """(A, C) for the first directory A on the way to ``path`` that others cannot traverse, C its child."""
    parts = os.path.realpath(path).strip("/").split("/")
    for depth in range(1, len(parts)):
        ancestor = "/" + "/".join(parts[:depth])
        if not os.stat(ancestor).st_mode & stat.S_IXOTH:
            return ancestor, parts[depth]
    return None


def expose(libc: ctypes.CDLL, paths: list[str]) -> None:
    """Make ``paths`` (the interpreter's directories) reachable for ``nobody`` without opening the rest.

    A directory on the way that others may not traverse (``/root``, mode 700) is covered by an
    empty root-owned tmpfs (mode 755) into which only the needed child is bind-mounted back:
    the program sees ``/root/.pyenv`` and nothing else of ``/root``.
    """
    wanted: dict[str, set[str]] = {}
    for path in paths:
        found = _blocking_ancestor(path)
        if found is not None:
            wanted.setdefault(found[0], set()).add(found[1])
    for number, (ancestor, children) in enumerate(sorted(wanted.items())):
        staged = []
        for child in sorted(children):
            stage = f"/tmp/.expose{number}_{len(staged)}"
            os.makedirs(stage)
            _mount(libc, os.path.join(ancestor, child), stage, None, MS_BIND | MS_REC)
            staged.append((child, stage))
        _mount(libc, "tmpfs", ancestor, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=755")
        for child, stage in staged:
            os.makedirs(os.path.join(ancestor, child))
            _mount(libc, stage, os.path.join(ancestor, child), None, MS_BIND | MS_REC)
            libc.umount2(_encode(stage), MNT_DETACH)
            os.rmdir(stage)


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def hold_shadowed(reachable: list[str], shadowed: list[str]) -> list[tuple[int, str]]:
    """(descriptor, folder) of each interpreter folder that lies inside a folder about to be shadowed
    (a virtual environment under /tmp): opened before the tmpfs hides it, bound back after."""
    folders = sorted({os.path.realpath(p) if os.path.isdir(p) else os.path.dirname(os.path.realpath(p))
                      for p in reachable})
    held: list[tuple[int, str]] = []
    for folder in folders:
        covered = any(_inside(folder, s) for s in shadowed)
        if covered and not any(_inside(folder, kept) for _, kept in held):
            held.append((os.open(folder, os.O_PATH | os.O_DIRECTORY), folder))
    return held


def restore_held(libc: ctypes.CDLL, held: list[tuple[int, str]]) -> None:
    """Bind each held folder back at its own path inside the tmpfs that now covers it."""
    for fd, folder in held:
        os.makedirs(folder, mode=0o755, exist_ok=True)
        _mount(libc, f"/proc/self/fd/{fd}", folder, None, MS_BIND | MS_REC)
        os.close(fd)


def isolate_filesystem(tmpfs_bytes: int, reachable: list[str], exposed: bool) -> None:
    """Private mounts, tmpfs over the writable shared directories (the interpreter's folders inside them
    bound back), the interpreter reachable for ``nobody`` when ``exposed``, a fresh /proc."""
    libc = ctypes.CDLL(None, use_errno=True)
    _mount(libc, None, "/", None, MS_REC | MS_PRIVATE)
    shadowed = [t for t in SHADOWED if os.path.isdir(t)]
    if os.getuid() != 0 and os.environ.get("HOME"):
        shadowed.append(os.environ["HOME"])
    held = hold_shadowed(reachable, shadowed)
    for target in shadowed:
        _mount(libc, "tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, f"size={tmpfs_bytes},mode=1777")
    restore_held(libc, held)
    if exposed:
        expose(libc, reachable)
    _mount(libc, "proc", "/proc", "proc", MS_NOSUID | MS_NODEV)


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
    isolate_filesystem(config["tmpfs_bytes"], config["reachable"], exposed=drop)
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
            os.execve(config["python"], [config["python"], "-I", "main.py"], config["env"])
        except BaseException as exc:  # noqa: BLE001 - report any setup failure on stderr, never run the program
            os.write(2, f"sandbox: {exc}\n".encode())
        os._exit(125)
    _, status = os.waitpid(child, 0)
    return os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)


if __name__ == "__main__":
    sys.exit(main())
