"""Run an untrusted Python program (a model's solver code) and capture what it prints.

The program runs under ``unshare --net --mount --pid --fork --kill-child``
(:mod:`schedc.bench.sandbox_boot` is the namespace's init process), so it

* has **no network and no sockets**: its network namespace holds only a loopback device that is
  down, and a seccomp filter refuses ``socket`` for every address family — a Unix socket of the
  host reachable by a path is as closed as TCP;
* has **no side doors into the kernel**: the seccomp filter also refuses new namespaces
  (``unshare``, ``setns``, ``clone`` with namespace flags), mounts, ``ptrace``, keyrings, ``bpf``,
  ``io_uring`` and the rest listed in :mod:`schedc.bench.sandbox_boot`; a system call of another
  architecture kills it;
* sees a **minimal filesystem**: an empty root holding, read-only, ``/usr``, the interpreter, its
  virtual environment and ``site-packages``; a few devices, a fresh ``/proc`` and its own
  size-limited ``/tmp`` (its working directory ``/tmp/work``) — nothing of the host's project
  folders, home, ``/etc`` (but the loader's cache) or ``/run``;
* cannot **outlive the run**: it is in its own session and process group and its own PID
  namespace, whose processes the kernel kills when the init process ends; the wall-time limit
  kills the whole process group;
* is bounded in **CPU** (``RLIMIT_CPU``), **memory** (``RLIMIT_AS``), **processes**
  (``RLIMIT_NPROC``: a fork bomb stops there), **open files**, **file size** (``RLIMIT_FSIZE``)
  and **output**: stdout and stderr together beyond ``output_bytes`` end the run at once (status
  ``output_limit``); the result keeps stdout up to the limit and the first ``STDERR_BYTES`` of stderr;
* runs as ``nobody`` when started as root, with a **clean environment**: ``PATH``,
  ``HOME``/``TMPDIR`` (its directory), ``LANG`` and thread-count variables only — none of the
  caller's variables (API keys) — and Python's isolated mode (``-I``). The interpreter is the
  caller's, so OR-Tools is importable.

Without root, the namespaces need an unprivileged user namespace (``--map-root-user``). When
the kernel allows neither, or the seccomp filter cannot be installed (``pyseccomp`` and libseccomp
are needed), :func:`require_isolation` raises: programs are never run without that isolation.
Under a user namespace the process limit counts the caller's own processes.
"""

from __future__ import annotations

import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

from schedc.core.diagnostics import SchedcError

BOOT = Path(__file__).with_name("sandbox_boot.py")
STDERR_BYTES = 8192
CHUNK = 65536


@dataclass(frozen=True)
class Limits:
    """What one program may use."""

    cpu_seconds: int = 10
    wall_seconds: float = 10.0
    memory_bytes: int = 2 << 30
    output_bytes: int = 1 << 20
    file_bytes: int = 16 << 20
    processes: int = 32
    open_files: int = 64
    tmpfs_bytes: int = 64 << 20


@dataclass(frozen=True)
class RunResult:
    """How a program ended and what it printed.

    ``status``: ``ok`` (exit 0), ``exit`` (another exit status), ``killed`` (a signal: CPU time
    or memory exhausted, crash), ``timeout`` (wall time), ``output_limit`` (too much stdout).
    """

    status: str
    returncode: int | None
    stdout: str
    stderr: str
    seconds: float


def _clean_env() -> dict[str, str]:
    """The program's whole environment (nothing of the caller's)."""
    threads = "1"
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp/work", "TMPDIR": "/tmp/work", "LANG": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1", "OMP_NUM_THREADS": threads, "OPENBLAS_NUM_THREADS": threads}


def _command(limits: Limits, user_namespace: bool) -> list[str]:
    """``unshare … python -I sandbox_boot.py CONFIG``: the init process and what it must set up."""
    unshare = shutil.which("unshare") or "unshare"
    config = {"limits": {k: int(v) for k, v in asdict(limits).items() if k not in ("wall_seconds", "output_bytes",
                                                                                   "tmpfs_bytes")},
              "tmpfs_bytes": limits.tmpfs_bytes, "python": sys.executable, "env": _clean_env(),
              "user_namespace": user_namespace, "binds": binds()}
    flags = ["--net", "--mount", "--pid", "--fork", "--kill-child"] + (["--map-root-user"] if user_namespace else [])
    return [unshare, *flags, "--", sys.executable, "-I", str(BOOT), json.dumps(config)]


def binds() -> list[str]:
    """What the program's filesystem holds of the host's, read-only: ``/usr`` (with the C library), the
    loader's cache, the interpreter's prefix and folder, its virtual environment and ``site-packages``."""
    return sorted({"/usr", "/etc/ld.so.cache", sys.prefix, sys.base_prefix, sys.exec_prefix,
                   os.path.dirname(os.path.realpath(sys.executable)), os.path.dirname(sys.executable),
                   *(p for p in sys.path if "site-packages" in p or "dist-packages" in p)})


@lru_cache(maxsize=1)
def isolation() -> tuple[bool | None, str]:
    """(user namespace needed?, why not) — None when no network namespace can be made here."""
    if shutil.which("unshare") is None:
        return None, "the `unshare` program (util-linux) is not installed"
    attempts = [False, True] if os.geteuid() == 0 else [True]
    reason = ""
    for user_namespace in attempts:
        result = _execute("print('ok')", Limits(wall_seconds=30, cpu_seconds=30), user_namespace)
        if result.status == "ok" and result.stdout.strip() == "ok":
            return user_namespace, ""
        reason = result.stderr.strip().splitlines()[-1] if result.stderr.strip() else result.status
    return None, reason


def require_isolation() -> bool:
    """Whether a user namespace is needed; a SchedcError when the kernel allows no network namespace."""
    user_namespace, reason = isolation()
    if user_namespace is None:
        raise SchedcError.at("B401", f"cannot isolate solver programs from the network ({reason}); "
                             "refusing to run them",
                             hint="run as root, or allow unprivileged user namespaces "
                                  "(sysctl kernel.unprivileged_userns_clone=1 / user.max_user_namespaces)")
    return user_namespace


def run_program(source: str, limits: Limits | None = None) -> RunResult:
    """Run ``source`` in the sandbox (see the module docstring); never raises for what the program does."""
    return _execute(source, limits or Limits(), require_isolation())


def _kill(process: subprocess.Popen) -> None:
    """SIGKILL the program's whole process group (its session; the PID namespace dies with it)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _execute(source: str, limits: Limits, user_namespace: bool) -> RunResult:
    """Start the sandbox, hand it the program on stdin, collect its output under the limits."""
    started = time.monotonic()
    try:
        process = subprocess.Popen(_command(limits, user_namespace), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, env=_clean_env(), start_new_session=True,
                                   cwd="/")
    except OSError as exc:
        return RunResult("exit", None, "", f"sandbox: {exc}", 0.0)
    try:
        process.stdin.write(source.encode("utf-8", "replace"))  # type: ignore[union-attr]
        process.stdin.close()  # type: ignore[union-attr]
    except OSError:
        pass  # the sandbox died before reading the program: its status says why
    status, out, err = _collect(process, limits, started)
    _kill(process)  # whatever is left (nothing, normally)
    code = process.wait()
    if status is None:
        status = "ok" if code == 0 else "killed" if code > 128 or code < 0 else "exit"
    return RunResult(status, code, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"),
                     round(time.monotonic() - started, 3))


def _collect(process: subprocess.Popen, limits: Limits, started: float) -> tuple[str | None, bytes, bytes]:
    """Read stdout and stderr until both close, the wall time passes or their total grows past ``output_bytes``.

    Both streams count against the output limit (a program flooding stderr is stopped as one flooding
    stdout is); stderr beyond its first ``STDERR_BYTES`` is counted, not kept.
    """
    out, err = bytearray(), bytearray()
    total = 0
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ, out)  # type: ignore[arg-type]
        selector.register(process.stderr, selectors.EVENT_READ, err)  # type: ignore[arg-type]
        while selector.get_map():
            left = limits.wall_seconds - (time.monotonic() - started)
            if left <= 0:
                _kill(process)
                return "timeout", bytes(out), bytes(err)
            for key, _ in selector.select(timeout=min(left, 0.5)):
                chunk = os.read(key.fd, CHUNK)
                if not chunk:
                    selector.unregister(key.fileobj)
                    continue
                total += len(chunk)
                if key.data is err:
                    err += chunk[:max(0, STDERR_BYTES - len(err))]
                else:
                    out += chunk
                if total > limits.output_bytes:
                    _kill(process)
                    return "output_limit", bytes(out[:limits.output_bytes]), bytes(err)
    return None, bytes(out), bytes(err)
