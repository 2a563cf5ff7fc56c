"""``--backend auto``: the portfolio of every backend that supports the instance, in one budget.

The backends that encode every active constraint kind of the instance (CP-SAT, and the Pyomo
MILP with HiGHS) run at the same time, each with the whole wall-clock budget, and the best
*verified* answer is returned (each backend re-checks its own solution with the evaluator
before it reports it) together with the best proven lower bound of either (the larger one:
every objective is minimised, and a bound proven by one model holds for the instance).

How the cores are shared: with ``workers = W ≥ 2`` CP-SAT gets ``W − 1`` search workers and
HiGHS one thread, so the two together use W cores; with ``W = 1`` they run one after the other,
each for half of the budget. The two model *builds* are Python: in one interpreter they would
share its lock and take as long as both one after the other (and HiGHS's interrupt callbacks
would slow CP-SAT's build further). So the MILP is built and solved in a worker process
(:class:`MilpWorker`, :mod:`schedc.backends.milp_child`) while CP-SAT's model is built here, on
the other core: the budget loses the longer of the two builds, not their sum. A worker is
started on the first request of a process and kept for the next ones (one per request running
at a time); its start (about 0.2 s) and each request's trip count as MILP building, and HiGHS
gets what is left of the budget. Without POSIX pipes (Windows) the MILP runs in a thread
instead, and the budget loses the sum of the builds. When only one backend supports the instance
it gets the whole budget and every worker, and so does CP-SAT on room-and-period timetables that
it anneals (:func:`schedc.backends.cpsat.anneals`): there one annealing runs on each core, and HiGHS
only probes for infeasibility while no timetable is known, as under ``--backend cpsat``. A
``start`` (``--hint``) goes to both: CP-SAT's solution hint, HiGHS's MIP start.

What is stopped when: as soon as one backend *proves* its result — an optimal answer, or
infeasibility — the other is stopped, so the wall time is that of the faster proof (plus the
stopped backend's reporting of its best answer so far; a MILP still being built, which no
interrupt reaches, has its worker ended after :data:`PROBE_GRACE`). CP-SAT is stopped through
``CpSolver.stop_search`` (and its tabu-search start through its stop test); HiGHS through an
interrupt callback that ends its simplex, interior-point or branch-and-bound run at the next
interrupt point. A backend that merely ends its budget stops nothing. With ``W = 1`` (one after
the other) a proof by CP-SAT, which runs first, skips the HiGHS run.

The status is ``optimal`` when one backend proved its answer optimal or the best answer meets
the best bound, ``infeasible`` when a backend proved the instance infeasible.

The same worker serves ``--backend cpsat`` (:func:`solve_cpsat`): CP-SAT alone with every worker,
and, only while it has no verified start, HiGHS probing for infeasibility beside it
(:class:`InfeasibilityProbe`, docs/solving.md).
"""

from __future__ import annotations

import atexit
import math
import os
import subprocess
import sys
import threading
import time
import warnings
import weakref
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from multiprocessing.connection import Connection

import msgspec

from schedc.backends import cpsat, milp_child, pyomo
from schedc.backends.base import SolveResult, gap_pct
from schedc.core.diagnostics import SchedcError
from schedc.core.solution import Solution
from schedc.ir import Family, Instance
from schedc.kinds import kind_name

Progress = Callable[[int, float, float], None]
SUPPORTED_KINDS = cpsat.SUPPORTED_KINDS | pyomo.SUPPORTED_KINDS


class SolveOptions(msgspec.Struct, frozen=True, kw_only=True):
    """Portfolio parameters: the wall-clock budget, the cores to share, the random seed."""

    time_limit: float = 10.0
    workers: int = 2
    seed: int = 0


def supporting(instance: Instance) -> list[str]:
    """The backends (``cpsat``, ``pyomo``) that encode every active constraint kind of the instance."""
    kinds = {kind_name(c) for c in instance.constraints if c.active}
    return [name for name, module in (("cpsat", cpsat), ("pyomo", pyomo)) if kinds <= module.SUPPORTED_KINDS]


WORKER_PIPES = os.name == "posix"
"""Whether the MILP can run in a worker process, whose pipes are passed as POSIX descriptors.
Elsewhere (Windows) it runs in a thread of this process, and the two builds share the
interpreter: the budget loses their sum."""
PROOF = ("optimal", "infeasible")
"""The statuses that settle an instance: a backend reporting one stops the other."""
#: seconds past the budget that :meth:`InfeasibilityProbe.end` waits for HiGHS's reply before it
#: ends the worker (a MILP build still running when the budget is over), and that the portfolio
#: waits after CP-SAT's proof
PROBE_GRACE = 0.5
#: seconds past the budget that the portfolio waits for HiGHS's answer before it ends the worker:
#: a run that ended at its time limit replies within about 0.1 s (extraction and verification),
#: so only a MILP still being built is cut off, and the command keeps to ``--time-limit`` + 1 s
LATE_REPLY = 1.0


def solve(instance: Instance, family: Family, options: SolveOptions | None = None,
          progress: Progress | None = None, start: Solution | None = None) -> SolveResult:
    """Run the supporting backends within ``options.time_limit`` and keep the best verified answer;
    a proof by either stops the other."""
    options = options or SolveOptions()
    names = supporting(instance) or ["cpsat"]  # none: CP-SAT names the unsupported kind in its error
    if len(names) == 1:
        return _run(names[0], instance, family, options.time_limit, options.workers, options.seed, progress, start)
    if options.workers >= 2 and cpsat.anneals(instance, family):
        # room-and-period timetables: every core anneals (HiGHS's answers were worse than CP-SAT's
        # side on every ITC-2007 instance; its lower bounds, better than CP-SAT's, are what this
        # gives up: docs/solving.md); HiGHS still probes while no timetable is known, so an
        # infeasible one is proved as under --backend cpsat
        alone = solve_cpsat(instance, family, cpsat.SolveOptions(time_limit=options.time_limit,
                                                                 workers=options.workers, seed=options.seed),
                            progress, start)
        return msgspec.structs.replace(alone, backend=f"auto:{alone.backend}")
    began = time.perf_counter()
    if options.workers >= 2 and WORKER_PIPES:
        results, overlapping = _side_by_side(instance, family, options, progress, start), True
    elif options.workers >= 2:
        results, overlapping = _side_by_side_in_a_thread(instance, family, options, progress, start), False
    else:
        results, overlapping = _one_after_the_other(instance, family, options, progress, start), False
    # the wall time of the portfolio itself: a stopped run reports less than the budget
    combined = combine(instance, results, overlapping_builds=overlapping)
    return msgspec.structs.replace(combined, seconds=time.perf_counter() - began)


def _one_after_the_other(instance: Instance, family: Family, options: SolveOptions, progress: Progress | None,
                         start: Solution | None) -> list[SolveResult]:
    """One worker: CP-SAT, then HiGHS unless CP-SAT proved its result, each for half the budget."""
    half = options.time_limit / 2
    first = _run("cpsat", instance, family, half, 1, options.seed, progress, start)
    if first.status in PROOF:
        return [first]
    return [first, _run("pyomo", instance, family, half, 1, options.seed, None, start)]


def _side_by_side(instance: Instance, family: Family, options: SolveOptions, progress: Progress | None,
                  start: Solution | None) -> list[SolveResult]:
    """HiGHS in a worker process (one core), CP-SAT here (the other workers), each building its
    own model at the same time; a proof by one stops the other.

    HiGHS's reply is awaited for :data:`PROBE_GRACE` seconds after CP-SAT's proof, or
    :data:`LATE_REPLY` seconds after the budget's end. A MILP still being built then (Python, which
    no interrupt reaches) would hold the answer back: on PSPLIB's multi-mode j2013_4 CP-SAT proved
    its optimum in 0.4 s and the portfolio waited until 11.4 s of a 10 s budget. So the worker is
    ended and CP-SAT's result is returned alone."""
    deadline = time.perf_counter() + options.time_limit
    stop_cp = threading.Event()

    def settled(done: Future[SolveResult]) -> None:  # runs in the receiving thread as soon as HiGHS returns
        if done.exception() is None and done.result().status in PROOF:
            stop_cp.set()

    worker, number = _submit(pyomo.solve, instance, family, options.time_limit, options.seed, start)
    with ThreadPoolExecutor(max_workers=1) as pool:
        mip = pool.submit(worker.receive, number)
        mip.add_done_callback(settled)
        try:
            cp = _run("cpsat", instance, family, options.time_limit, options.workers - 1, options.seed, progress,
                      start, stop_cp)
        except BaseException:
            worker.end()  # the error propagates: HiGHS's answer would come for nobody, after its whole budget
            raise
        proved = cp.status in PROOF
        if proved:
            worker.stop(number)
        grace = PROBE_GRACE if proved else max(0.0, deadline - time.perf_counter()) + LATE_REPLY
        try:
            if not wait([mip], timeout=grace).done:  # still building: its answer would come too late
                worker.end()
                return [cp]
            return [cp, mip.result()]
        finally:
            if mip.done():
                _release(worker)  # nothing for a worker ended above: it is no longer usable
            else:  # ended above, or interrupted while waiting (Ctrl-C): its reply would reach the next request
                worker.end()


def _side_by_side_in_a_thread(instance: Instance, family: Family, options: SolveOptions,
                              progress: Progress | None, start: Solution | None) -> list[SolveResult]:
    """Without worker pipes: HiGHS in a thread (one core), CP-SAT here; a proof by one stops the other."""
    stop_cp, stop_mip = threading.Event(), threading.Event()

    def settled(done: Future[SolveResult]) -> None:  # runs in HiGHS's thread as soon as it returns
        if done.exception() is None and done.result().status in PROOF:
            stop_cp.set()

    with ThreadPoolExecutor(max_workers=1) as pool:
        mip = pool.submit(_run, "pyomo", instance, family, options.time_limit, 1, options.seed, None, start,
                          stop_mip)
        mip.add_done_callback(settled)
        try:
            cp = _run("cpsat", instance, family, options.time_limit, options.workers - 1, options.seed, progress,
                      start, stop_cp)
        except BaseException:
            stop_mip.set()  # the error propagates; leaving the pool must not wait for HiGHS's budget
            raise
        if cp.status in PROOF:
            stop_mip.set()
        return [cp, mip.result()]


class MilpWorker:
    """A worker process serving MILP runs one at a time (:mod:`schedc.backends.milp_child`):
    requests, replies and stop requests each through a pipe of their own."""

    def __init__(self) -> None:
        requests_in, requests_out = os.pipe()
        replies_in, replies_out = os.pipe()
        stops_in, stops_out = os.pipe()
        theirs = (requests_in, replies_out, stops_in)
        try:
            self._process = subprocess.Popen([sys.executable, "-c", milp_child.BOOTSTRAP, *map(str, theirs)],
                                             pass_fds=theirs, stdin=subprocess.DEVNULL)
        except BaseException:
            for fd in (requests_out, replies_in, stops_out):
                os.close(fd)
            raise
        finally:
            for fd in theirs:
                os.close(fd)
        self._requests = Connection(requests_out, readable=False)
        self._replies = Connection(replies_in, writable=False)
        self._stops = Connection(stops_out, readable=False)
        self._owner = os.getpid()
        self._number = 0
        self.alive = True
        self._requests.send(list(sys.path))  # the worker's first read, before it imports anything of ours
        _ALL.add(self)

    def usable(self) -> bool:
        """Alive, running, and this process's own (not inherited through a fork)."""
        return self.alive and self._owner == os.getpid() and self._process.poll() is None

    def send(self, run: Callable[..., SolveResult], instance: Instance, family: Family, time_limit: float,
             seed: int, start: Solution | None) -> int:
        """Request ``run`` (``pyomo.solve``) on the instance; returns the request's number."""
        self._number += 1
        try:
            self._requests.send((self._number, time.time(), run, instance, family, time_limit, seed, start))
        except OSError:  # gone since its last request: never to be reused (pickling errors leave it usable)
            self.alive = False
            raise
        return self._number

    def receive(self, number: int) -> SolveResult:
        """The reply to request ``number``: its result, or its error raised here."""
        try:
            got, kind, payload = self._replies.recv()
        except (EOFError, OSError):
            self.alive = False
            self.close()
            code = self._process.wait()
            raise RuntimeError(f"the MILP worker process ended without an answer (exit code {code})") from None
        assert got == number, f"reply to request {got} while waiting for {number}"
        if kind == "error":
            raise payload
        return payload

    def stop(self, number: int) -> None:
        """Interrupt request ``number`` (nothing, once it has ended)."""
        try:
            self._stops.send(number)
        except OSError:  # the worker is gone: receive reports it
            pass

    def end(self) -> None:
        """Terminate the worker (its pipes close once :meth:`receive` sees it gone)."""
        self.alive = False
        self._process.terminate()

    def close(self) -> None:
        """Close this process's ends of the pipes: an idle worker reads the end and exits."""
        for connection in (self._requests, self._replies, self._stops):
            connection.close()


_ALL: weakref.WeakSet[MilpWorker] = weakref.WeakSet()
_IDLE: list[MilpWorker] = []
_IDLE_LOCK = threading.Lock()


def _worker() -> MilpWorker:
    """An idle worker of this process, or a new one."""
    with _IDLE_LOCK:
        while _IDLE:
            worker = _IDLE.pop()
            if worker.usable():
                return worker
    return MilpWorker()


def _submit(run: Callable[..., SolveResult], instance: Instance, family: Family, time_limit: float, seed: int,
            start: Solution | None) -> tuple[MilpWorker, int]:
    """A worker and the number of the request sent to it (see :meth:`MilpWorker.send`)."""
    worker = _worker()
    try:
        return worker, worker.send(run, instance, family, time_limit, seed, start)
    except OSError:  # the idle worker died since its last request (its pipe broke): a new one
        worker = MilpWorker()
        return worker, worker.send(run, instance, family, time_limit, seed, start)
    except BaseException:
        _release(worker)  # a request pickle could not carry: nothing was written, the worker is as before
        raise


def _release(worker: MilpWorker) -> None:
    if worker.usable():
        with _IDLE_LOCK:
            _IDLE.append(worker)


def _end_idle_workers() -> None:
    with _IDLE_LOCK:
        idle, _IDLE[:] = list(_IDLE), []
    for worker in idle:
        if worker.usable():
            worker.close()  # it reads the end of its requests and exits
            worker._process.wait()


def _forget_inherited_workers() -> None:
    # in a forked child: the parent's workers are the parent's; holding their pipes open here
    # would keep an idle one alive after the parent is done with it
    for worker in list(_ALL):
        worker.alive = False
        worker.close()
    _IDLE.clear()


atexit.register(_end_idle_workers)
if hasattr(os, "register_at_fork"):  # POSIX only, as the workers are
    os.register_at_fork(after_in_child=_forget_inherited_workers)


def _run(name: str, instance: Instance, family: Family, time_limit: float, workers: int, seed: int,
         progress: Progress | None, start: Solution | None, stop: threading.Event | None = None) -> SolveResult:
    if name == "cpsat":
        return cpsat.solve(instance, family, cpsat.SolveOptions(time_limit=time_limit, workers=workers, seed=seed),
                           progress, start=start, stop=stop)
    return pyomo.solve(instance, family, pyomo.SolveOptions(time_limit=time_limit, workers=workers, seed=seed),
                       progress, start=start, stop=stop)


class InfeasibilityProbe:
    """HiGHS looking for any feasible point of the MILP (:func:`schedc.backends.pyomo.probe`:
    the objective left out) beside a CP-SAT run that has no verified start — the
    :class:`~schedc.backends.base.Probe` of ``--backend cpsat``.

    :meth:`begin` sends the request to the portfolio's worker process (:class:`MilpWorker`; a
    thread of this process where there are no worker pipes) with what is left of the budget; a
    thread here waits for the reply and, when HiGHS proved the instance infeasible, sets
    ``stop`` (CP-SAT then ends within about 50 ms). :meth:`feasible` (CP-SAT found a solution)
    interrupts HiGHS. :meth:`end` interrupts it too and returns its verdict when CP-SAT needs it.
    A MILP that refuses the instance (E501: a form of a kind it does not encode) gives no verdict;
    any other error of the probe is raised by :meth:`end`, or, once CP-SAT has answered and
    nobody waits for the probe, reported as a ``RuntimeWarning``.
    """

    def __init__(self, instance: Instance, family: Family, time_limit: float, seed: int,
                 stop: threading.Event):
        self.instance, self.family, self.seed, self.stop = instance, family, seed, stop
        self.deadline = time.perf_counter() + time_limit
        self.verdict: SolveResult | None = None
        self.error: BaseException | None = None
        self._done = threading.Event()
        self._thread: threading.Thread | None = None
        self._worker: MilpWorker | None = None
        self._number = 0
        self._interrupt = threading.Event()  # the thread form's stop
        self._abandoned = False  # the worker was ended while building past the budget
        self._left = False  # end() returned without waiting for the reply
        self._lock = threading.Lock()

    def begin(self) -> None:
        if self._thread is not None or self._interrupt.is_set():
            return
        left = self.deadline - time.perf_counter()
        if left <= 0.1:
            return
        if WORKER_PIPES:
            worker, number = _submit(pyomo.probe, self.instance, self.family, left, self.seed, None)
            self._worker, self._number = worker, number

            def reply() -> SolveResult:
                return worker.receive(number)
        else:
            options = pyomo.SolveOptions(time_limit=left, workers=1, seed=self.seed)

            def reply() -> SolveResult:
                return pyomo.probe(self.instance, self.family, options, stop=self._interrupt)
        self._thread = threading.Thread(target=self._wait_for, args=(reply,), name="schedc-probe", daemon=True)
        self._thread.start()

    def _wait_for(self, reply: Callable[[], SolveResult]) -> None:
        try:
            self.verdict = reply()
        except BaseException as error:  # noqa: BLE001 — raised by end(), or warned of once nobody waits
            self.error = error
        else:
            if self._worker is not None:
                _release(self._worker)
            if self.verdict.status == "infeasible":
                self.stop.set()
        finally:
            with self._lock:
                self._done.set()
                late = self._left
            if late:
                self._warn()

    def _reportable(self) -> BaseException | None:
        """The probe's error, unless it is the MILP's refusal (E501) or the end of a worker we ended."""
        error = self.error
        if error is None or self._abandoned:
            return None
        if isinstance(error, SchedcError) and all(d.code == "E501" for d in error.diagnostics):
            return None
        return error

    def _warn(self) -> None:
        if (error := self._reportable()) is not None:
            warnings.warn(f"the infeasibility probe failed after CP-SAT had answered: {error!r}", RuntimeWarning,
                          stacklevel=2)

    def feasible(self) -> None:
        self._interrupt.set()
        if self._worker is not None:
            self._worker.stop(self._number)

    def end(self, needed: bool = True) -> SolveResult | None:
        """When HiGHS's verdict is ``needed`` (CP-SAT ended without an answer), wait for it — HiGHS
        runs on to the budget's end, and is given :data:`PROBE_GRACE` beyond before its worker is
        ended — and return it (None: not begun, or no reply); an error of the probe is raised.
        Otherwise interrupt HiGHS and return at once: the reply is collected (and the worker
        released) by the waiting thread, and an error is reported as a warning."""
        if self._thread is None or not needed:
            self.feasible()
        if self._thread is None:
            return None
        if not needed:
            with self._lock:
                self._left = not self._done.is_set()
            if not self._left:
                self._warn()
            return None
        if not self._done.wait(max(0.0, self.deadline - time.perf_counter()) + PROBE_GRACE):
            if self._worker is None:  # a thread of this process cannot be ended: its reply is not awaited
                return None
            self._abandoned = True
            self._worker.end()
            self._done.wait()
        if (error := self._reportable()) is not None:
            raise error
        return None if self.error is not None else self.verdict


def solve_cpsat(instance: Instance, family: Family, options: cpsat.SolveOptions | None = None,
                progress: Progress | None = None, start: Solution | None = None) -> SolveResult:
    """``schedc solve --backend cpsat``: CP-SAT alone with every worker, and, while it has no verified
    start (so nothing shows the instance feasible), HiGHS's :class:`InfeasibilityProbe` beside it
    when the MILP encodes every active kind. HiGHS's proof of infeasibility ends the run as
    ``infeasible``; should CP-SAT end without a solution where HiGHS found a feasible point,
    that point (verified) is the answer. Otherwise the result is CP-SAT's, unchanged."""
    options = options or cpsat.SolveOptions()
    if "pyomo" not in supporting(instance):
        return cpsat.solve(instance, family, options, progress, start=start)
    began = time.perf_counter()
    stop = threading.Event()
    probe = InfeasibilityProbe(instance, family, options.time_limit, options.seed, stop)
    try:
        result = cpsat.solve(instance, family, options, progress, start=start, stop=stop, probe=probe)
    except BaseException:
        probe.end(needed=False)
        raise
    answered = result.solution is not None or result.status in PROOF
    verdict = probe.end(needed=not answered)
    if verdict is None or answered:
        return result
    seconds = time.perf_counter() - began
    if verdict.status == "infeasible":
        return msgspec.structs.replace(result, backend="cpsat+probe:pyomo", status="infeasible", objective=None,
                                       bound=None, gap_pct=None, seconds=seconds)
    if verdict.solution is not None:
        return msgspec.structs.replace(verdict, backend="cpsat+probe:pyomo", seconds=seconds,
                                       build_seconds=result.build_seconds)
    return result


def combine(instance: Instance, results: list[SolveResult], overlapping_builds: bool = False) -> SolveResult:
    """One result from several runs on the same instance: the best objective (ties: the first
    run's), the largest bound, the longest wall time, and the time the budget lost to building:
    the longest build when the builds ran at the same time on separate cores, else their total."""
    solved = [r for r in results if r.objective is not None]
    bounds = [r.bound for r in results if r.bound is not None and math.isfinite(r.bound)]
    bound = max(bounds) if bounds else None
    seconds = max(r.seconds for r in results)
    builds = [r.build_seconds for r in results]
    built = max(builds) if overlapping_builds else sum(builds)
    if not solved:
        status = "infeasible" if any(r.status == "infeasible" for r in results) else "unknown"
        return SolveResult(instance=instance.name, backend="auto", status=status, objective=None, bound=bound,
                           bks=instance.meta.bks, gap_pct=None, seconds=seconds, build_seconds=built)
    best = min(solved, key=lambda r: r.objective if r.objective is not None else math.inf)
    assert best.objective is not None
    proven = any(r.status == "optimal" and r.objective == best.objective for r in solved)
    if bound is not None and best.objective <= math.ceil(bound - 1e-6):
        proven = True
    return msgspec.structs.replace(best, backend=f"auto:{best.backend}", status="optimal" if proven else "feasible",
                                   bound=bound, seconds=seconds, build_seconds=built,
                                   gap_pct=gap_pct(best.objective, instance.meta.bks))
