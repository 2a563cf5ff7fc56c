"""Running independent tasks: in this process, in a local process pool, or on a Dask cluster.

``run_tasks(fn, tasks, jobs, executor)`` yields each task's result as it finishes (order not
guaranteed); ``fn`` must be a top-level function so that it can be pickled. ``executor="dask"``
needs the optional extra ``schedc[dask]`` (``dask[distributed]``); ``scheduler`` is the address of a
running scheduler, or None for a local cluster with ``jobs`` workers (one thread each). Paths in
tasks must be absolute: a remote worker does not share our working directory. The workers of a
remote scheduler need the same schedc installed and the same file system (input and output folders).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any

from schedc.core.diagnostics import SchedcError

EXECUTORS = ("local", "dask")
#: Seconds to wait for a remote Dask scheduler before giving up.
CONNECT_TIMEOUT = 10
#: A local cluster: no dashboard, its HTTP server on a free port (not 8787), warnings and errors logged only.
LOCAL_CLUSTER_OPTIONS: dict[str, Any] = {"dashboard_address": None, "silence_logs": 30,
                                         "scheduler_kwargs": {"dashboard_address": "127.0.0.1:0"}}


def run_tasks(fn: Callable[[Any], Any], tasks: Sequence[Any], jobs: int = 1, executor: str = "local",
              scheduler: str | None = None, progress: str | None = None) -> Iterator[Any]:
    """Yield ``fn(task)`` for every task (with a rich progress bar labelled ``progress`` when given)."""
    if executor not in EXECUTORS:
        raise SchedcError.at("B110", f"unknown executor {executor!r}", hint="executors: " + ", ".join(EXECUTORS))
    if jobs < 1:
        raise SchedcError.at("B111", f"--jobs must be at least 1 (got {jobs})")
    if executor == "dask":
        results = _dask(fn, tasks, jobs, scheduler)
    elif jobs == 1 or len(tasks) <= 1:
        results = (fn(task) for task in tasks)
    else:
        results = _pool(fn, tasks, jobs)
    if progress is None:
        yield from results
        return
    yield from _with_progress(results, len(tasks), progress)


def _with_progress(results: Iterator[Any], total: int, label: str) -> Iterator[Any]:
    from schedc.bench.progress import progress_bar

    with progress_bar(label, total) as advance:
        for result in results:
            advance(1)
            yield result


def _pool(fn: Callable[[Any], Any], tasks: Sequence[Any], jobs: int) -> Iterator[Any]:
    """A process pool with at most ``2 × jobs`` tasks in flight (memory stays bounded)."""
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        pending: set[Future] = set()
        queue = iter(tasks)
        for task in queue:
            pending.add(pool.submit(fn, task))
            if len(pending) >= 2 * jobs:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                yield from (f.result() for f in done)
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            yield from (f.result() for f in done)


def _dask(fn: Callable[[Any], Any], tasks: Sequence[Any], jobs: int, scheduler: str | None) -> Iterator[Any]:
    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise SchedcError.at("B112", "the dask executor needs dask.distributed",
                             hint="pip install 'schedc[dask]'") from None
    if not tasks:
        return
    cluster = None
    try:
        if scheduler:
            client = Client(scheduler, timeout=CONNECT_TIMEOUT)
        else:
            cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, **LOCAL_CLUSTER_OPTIONS)
            client = Client(cluster)
    except (OSError, TimeoutError) as exc:
        if cluster is not None:
            cluster.close()
        where = f"the Dask scheduler at {scheduler}" if scheduler else "a local Dask cluster"
        raise SchedcError.at("B113", f"cannot connect to {where}: {exc}",
                             hint="start one with `dask scheduler` and `dask worker ADDRESS`, "
                                  "or leave out --scheduler for a local cluster") from None
    try:
        futures = client.map(fn, list(tasks), pure=False)
        for future in as_completed(futures):
            yield future.result()
            future.release()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
