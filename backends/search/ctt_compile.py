"""Which kernel a timetable solve runs, so that its budget holds on the first call after an installation.

numba compiles :mod:`schedc.backends.search.ctt_kernel` on its first use (about 30 s on a loaded
2-core machine, longer under load) and keeps the machine code in its on-disk cache
(``__pycache__`` beside the module; where that folder is not writable — a system-wide install —
numba falls back to a user cache folder by itself, and ``NUMBA_CACHE_DIR`` overrides both).
Compiling inside a solve's budget once made ``schedc solve comp01.sched --time-limit 10`` take
36.6 s. So a solve never compiles:

* :func:`cached` tells, without compiling anything, whether every kernel function a solve calls
  (:data:`CALLS`) is either compiled in this process or in numba's cache for the argument types
  a solve passes (those of :func:`~schedc.backends.search.ctt_search.toy_problem`, which a test
  checks are a real instance's);
* when it is not, :func:`compile_in_background` starts one process (``nice``, in a session of
  its own, so it outlives the command) that calls :func:`~schedc.backends.search.ctt_search.warm_up`
  and so fills the cache, prints one line on standard error, and the solve runs the same
  functions as plain Python (:func:`plain_kernel`: the same moves and trajectories, about 100×
  fewer per second) — the result is what the pure-Python path gives in that budget;
* :class:`Kernels` hands the annealing its kernel chunk by chunk and looks again (at most once a
  second) whether the cache is ready; once it is, and enough of the budget is left to load it,
  the rest of the annealing runs compiled.

A lock file (``fcntl.flock``, held by the compiling process) keeps concurrent solves from
starting a second compile while one is under way. How numba's cache is read here is numba's
internal API (``Dispatcher._cache``, ``_index_key``, ``_cache_file._load_index``, numba 0.61–0.68);
should it change, :func:`cached` answers None ("cannot tell"): the solve then starts the
background process anyway (which only loads the cache when it is warm, about a second) and
switches to the compiled kernel when that process has ended without error.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from types import ModuleType
from typing import IO, Any

import numpy as np

from schedc.backends.search import ctt_kernel, ctt_search

#: the kernel functions a timetable solve calls from Python (the greedy's and the annealing's)
CALLS = ("open_cells", "place", "anneal_chunk")
#: what the one line on standard error says while the kernel compiles
NOTICE = ("schedc: compiling the timetable annealing kernel in a background process (once per installation, "
          "about 30 s); this solve runs it as plain Python meanwhile")
#: seconds between two looks at the cache while the plain copy runs
LOOK_EVERY = 1.0
#: the compiled kernel takes over only with at least this many seconds of the annealing left
#: (loading it from the cache takes about half a second, in the calling thread)
SWITCH_MARGIN = 2.0

_plain: ModuleType | None = None
_state_lock = threading.Lock()
_child: subprocess.Popen[bytes] | None = None  # this process's compiling child, if it started one
_noticed = False


def plain_kernel() -> ModuleType:
    """A second copy of :mod:`~schedc.backends.search.ctt_kernel` whose functions are never
    compiled (its ``PLAIN`` is set before its code runs), whatever numba's state; loaded once."""
    global _plain
    with _state_lock:
        if _plain is None:
            if not ctt_kernel.COMPILED:  # the module itself is plain Python already
                _plain = ctt_kernel
            else:
                spec = importlib.util.spec_from_file_location(f"{ctt_kernel.__name__}_plain", ctt_kernel.__file__)
                assert spec is not None and spec.loader is not None
                module = importlib.util.module_from_spec(spec)
                module.PLAIN = True  # type: ignore[attr-defined]
                spec.loader.exec_module(module)
                _plain = module
        return _plain


def _toy_arguments() -> dict[str, tuple[Any, ...]]:
    """Arguments of each function of :data:`CALLS` with the types a solve passes (nothing runs)."""
    pb = ctt_search.toy_problem()
    data = ctt_search.kernel_data(pb)
    state = ctt_kernel.empty_state(data, pb.ctx.days, pb.slots, len(pb.rooms), len(pb.groups))
    rng = np.array([1], dtype=np.uint64)
    steps = np.zeros((max(pb.lectures), 2), np.int64)
    chain = np.zeros((2 * len(pb.rooms), 3), np.int64)
    cells = np.zeros((pb.slots, 3), np.int64)
    return {"open_cells": (data, state, 0, cells), "place": (data, state, 0, 0, 0),
            "anneal_chunk": (data, state, rng, state.slot.copy(), state.room.copy(), state.cost.copy(), 1, 1.0, 0.0,
                             0.0, steps, 0.0, chain)}


def cached() -> bool | None:
    """Whether every function of :data:`CALLS` runs compiled without compiling: compiled in this
    process, or found in numba's on-disk cache for a solve's argument types (then the first call
    only loads it). True as well when nothing is ever compiled (numba absent or disabled); None
    when numba's cache cannot be read as expected (see the module docstring)."""
    if not ctt_kernel.COMPILED:
        return True
    try:
        for name, arguments in _toy_arguments().items():
            dispatcher = getattr(ctt_kernel, name)
            signature = tuple(dispatcher.typeof_pyval(a) for a in arguments)
            if signature in dispatcher.overloads:
                continue
            cache = dispatcher._cache
            key = cache._index_key(signature, dispatcher.targetctx.codegen())
            if key not in cache._cache_file._load_index():
                return False
        return True
    except Exception:  # noqa: BLE001 — numba's internals changed: "cannot tell", handled by the caller
        return None


def lock_path() -> str:
    """One lock file per kernel source and cache folder (two installs never wait for each other)."""
    where = f"{os.path.abspath(ctt_kernel.__file__)}|{os.environ.get('NUMBA_CACHE_DIR', '')}"
    digest = hashlib.sha256(where.encode()).hexdigest()[:16]
    return os.path.join(tempfile.gettempdir(), f"schedc-ctt-kernel-{digest}.lock")


#: what the compiling process runs: lower its priority, take the parent's import path, fill the cache
BOOTSTRAP = ("import os, sys; os.nice(10) if hasattr(os, 'nice') else None; sys.path[:] = sys.argv[1:]; "
             "from schedc.backends.search.ctt_search import warm_up; warm_up()")


def compile_in_background(notice: IO[str] | None = None) -> bool:
    """Start the process that compiles the kernel into numba's cache, unless one is under way
    (this process's, or another's holding the lock); print :data:`NOTICE` on ``notice``
    (standard error by default) the first time this process starts one. True when one is
    under way after the call."""
    global _child, _noticed
    with _state_lock:
        if _child is not None and _child.poll() is None:
            return True
        handle = _locked()
        if handle is None:  # another process compiles: its result lands in the same cache
            return True
        try:
            inherit = (handle.fileno(),) if os.name == "posix" else ()  # the lock goes with the child
            _child = subprocess.Popen([sys.executable, "-c", BOOTSTRAP, *sys.path], pass_fds=inherit,
                                      stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL, start_new_session=True)
        finally:
            handle.close()  # the child holds the lock (the same open file) until it exits
        if not _noticed:
            _noticed = True
            print(NOTICE, file=notice or sys.stderr, flush=True)
        return True


def _locked() -> IO[bytes] | None:
    """The lock file, opened and locked (None when another process holds it). Without
    ``fcntl`` (Windows) there is no lock: each process compiles at most once by itself."""
    try:
        import fcntl
    except ImportError:
        return open(os.devnull, "rb")  # noqa: SIM115 — closed by the caller
    handle = open(lock_path(), "ab")  # noqa: SIM115 — closed by the caller
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        return None
    return handle


def background_child() -> subprocess.Popen[bytes] | None:
    """This process's compiling child, if it started one (running or ended)."""
    return _child


def _child_succeeded() -> bool:
    child = _child
    return child is not None and child.poll() == 0


class Kernels:
    """The kernel module a timetable solve runs, asked before each annealing chunk with the
    seconds left of the annealing: the compiled one when :func:`cached` says so, else the
    plain-Python copy while :func:`compile_in_background` fills the cache — and the compiled one
    from the chunk after the cache is ready, while at least :data:`SWITCH_MARGIN` seconds are left."""

    def __init__(self, notice: IO[str] | None = None, ready: Callable[[], bool | None] = cached):
        self._ready = ready
        self.compiled = bool(ready())
        if not self.compiled:
            compile_in_background(notice)
        self._looked = time.perf_counter()
        self.plain = plain_kernel()

    @property
    def module(self) -> ModuleType:
        """The module to run now (without looking at the cache again)."""
        return ctt_kernel if self.compiled else self.plain

    def __call__(self, left: float = float("inf")) -> ModuleType:
        if not self.compiled and left >= SWITCH_MARGIN and time.perf_counter() - self._looked >= LOOK_EVERY:
            self._looked = time.perf_counter()
            self.compiled = bool(self._ready()) or _child_succeeded()
        return self.module


def wait_for_background(timeout: float | None = None) -> int | None:
    """Wait for this process's compiling child (tests, benchmarks); its exit code, None if none
    was started or it is still running after ``timeout`` seconds."""
    child = _child
    if child is None:
        return None
    with contextlib.suppress(subprocess.TimeoutExpired):
        return child.wait(timeout)
    return None
