"""The portfolio's MILP runs in a worker process of their own (see :mod:`schedc.backends.portfolio`).

A worker is a fresh interpreter (``python -c`` with :data:`BOOTSTRAP`), not a fork of the
caller and not a ``multiprocessing`` child: a fork would copy HiGHS's process-wide thread
scheduler without its threads, and a ``multiprocessing`` child (spawn or forkserver) re-imports
the caller's main script, which costs a benchmark script its whole import time on every start
and needs the ``if __name__ == "__main__"`` guard in every user script. The worker imports this
module, the MILP backend and highspy (about 0.2 s, once per worker) and then serves requests one
at a time until its parent closes the request pipe. Three pipes join them, each a
:class:`multiprocessing.connection.Connection` over a raw descriptor: requests in, replies out,
and stop requests in, read by a thread of their own so that a stop reaches a running HiGHS.

A request is ``(number, sent, run, instance, family, time_limit, seed, start)``; ``run`` is
``pyomo.solve``, pickled by reference. The reply is ``(number, "result", SolveResult)`` or
``(number, "error", exception)``. A stop names the request it stops, so a stop that arrives
after its request ended never touches the next one.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable
from multiprocessing.connection import Connection

import msgspec

from schedc.backends import pyomo
from schedc.backends.base import SolveResult

BOOTSTRAP = ("import sys; from multiprocessing.connection import Connection; "
             "requests = Connection(int(sys.argv[1]), writable=False); sys.path[:] = requests.recv(); "
             "from schedc.backends.milp_child import serve; serve(requests, int(sys.argv[2]), int(sys.argv[3]))")
"""What the worker's interpreter runs: the first message on the request pipe is the parent's
``sys.path`` (so that this module and the functions named in requests import as in the parent)."""


class _Stops:
    """Which request runs, its interrupt event, and the highest request number a stop named."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running = 0
        self._interrupt = threading.Event()
        self._stopped = 0

    def begin(self, number: int) -> threading.Event:
        """A fresh interrupt event for request ``number``, already set if its stop came first."""
        with self._lock:
            self._running, self._interrupt = number, threading.Event()
            if self._stopped >= number:
                self._interrupt.set()
            return self._interrupt

    def stop(self, number: int) -> None:
        with self._lock:
            self._stopped = max(self._stopped, number)
            if self._running == number:
                self._interrupt.set()


def serve(requests: Connection, replies_fd: int, stops_fd: int) -> None:
    """The worker's loop (see the module docstring); returns when the parent closes its end."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: it ends this worker
    replies = Connection(replies_fd, readable=False)
    stops = _Stops()
    threading.Thread(target=_follow, args=(Connection(stops_fd, writable=False), stops), name="schedc-stops",
                     daemon=True).start()
    while True:
        try:
            number, sent, run, *arguments = requests.recv()
        except EOFError:
            return
        reply = _solve(stops.begin(number), sent, run, *arguments)
        try:
            _send(replies, (number, *reply))
        except OSError:  # the parent is gone: nobody waits for this answer
            return


def _follow(stops_in: Connection, stops: _Stops) -> None:
    while True:
        try:
            stops.stop(stops_in.recv())
        except EOFError:
            return


def _solve(interrupt: threading.Event, sent: float, run: Callable[..., SolveResult], instance: object,
           family: object, time_limit: float, seed: int, start: object) -> tuple[str, object]:
    """``run`` (``pyomo.solve``, one thread) within what the trip here left of the budget; the
    trip (from ``sent``, the parent's wall clock: the worker's start, for its first request)
    counts as model building."""
    trip = max(0.0, time.time() - sent)
    try:
        solved = run(instance, family, pyomo.SolveOptions(time_limit=max(0.1, time_limit - trip), workers=1,
                                                          seed=seed), None, start=start, stop=interrupt)
    except BaseException as error:  # noqa: BLE001 — not swallowed: the parent raises it
        return "error", error
    return "result", msgspec.structs.replace(solved, build_seconds=solved.build_seconds + trip)


def _send(replies: Connection, reply: tuple[int, str, object]) -> None:
    try:
        replies.send(reply)
    except OSError:
        raise
    except Exception as unpicklable:  # noqa: BLE001 — pickling fails before anything is written: send the text
        number, _, payload = reply
        replies.send((number, "error", RuntimeError(f"the MILP run failed: {payload!r} ({unpicklable})")))
