"""The immutable state types of the dynamic shop simulator (:mod:`schedc.dynamic.simulator`).

A :class:`SimState` is a snapshot: a step builds a new one and shares everything it did not
change with the old one. Per-job facts (next route position, status, last completion) live in
:class:`JobVector`, a two-level tuple, so that changing one job copies one chunk and the chunk
index — O(√N) — instead of an N-tuple: a decision then costs the same at N_J = 200 and 1,600.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import NamedTuple

from schedc.dynamic.world import Job

CHUNK = 64


@dataclass(frozen=True, slots=True)
class JobVector:
    """An immutable integer vector stored as chunks of :data:`CHUNK` entries.

    ``v[i]``, ``len(v)``, iteration and ``==`` behave as on a tuple; :meth:`set` returns a new
    vector sharing every untouched chunk with this one.
    """

    chunks: tuple[tuple[int, ...], ...]
    size: int

    @staticmethod
    def filled(value: int, size: int) -> JobVector:
        """``size`` copies of ``value``."""
        full, rest = divmod(size, CHUNK)
        chunks = ((value,) * CHUNK,) * full + (((value,) * rest,) if rest else ())
        return JobVector(chunks, size)

    def __getitem__(self, index: int) -> int:
        if index < 0:
            index += self.size
        return self.chunks[index // CHUNK][index % CHUNK]

    def __len__(self) -> int:
        return self.size

    def __iter__(self) -> Iterator[int]:
        for chunk in self.chunks:
            yield from chunk

    def set(self, index: int, value: int) -> JobVector:
        """A copy with entry ``index`` replaced by ``value``."""
        c, k = divmod(index, CHUNK)
        chunk = self.chunks[c]
        return JobVector(set_at(self.chunks, c, set_at(chunk, k, value)), self.size)


class PoolEntry(NamedTuple):
    """Operation ``op`` (global index) is ready and uncommitted since ``ready`` (arrival in the pool)."""

    op: int
    ready: int


class Run(NamedTuple):
    """Operation ``op`` runs on machine ``machine`` from ``start``; it would complete at ``end`` (true duration)."""

    op: int
    machine: int
    start: int
    end: int


class LogEntry(NamedTuple):
    """One line of the trajectory: ``kind`` is dispatch | start | complete | abort | arrival | outage | event."""

    time: int
    kind: str
    op: str = ""
    machine: str = ""
    detail: str = ""


class MachineState(NamedTuple):
    """A machine's run (or None), its committed FIFO ``queue`` of operations and ``busy`` time of ended runs."""

    run: Run | None = None
    queue: tuple[int, ...] = ()
    busy: int = 0


@dataclass(frozen=True, slots=True)
class SimState:
    """An immutable snapshot of the shop at ``time``.

    ``cursor`` indexes the next unapplied timeline item; ``next_step[j]`` the next incomplete
    operation of job ``j`` (a position in its route); ``status[j]`` is UNSEEN/ACTIVE/WITHDRAWN;
    ``left`` counts incomplete operations of realised jobs; ``job_end[j]`` is the latest
    completion of an operation of job ``j`` (-1 before the first); ``candidates`` are the pool
    entries a decision may pick now (empty when the simulation is over).
    """

    time: int
    cursor: int
    machines: tuple[MachineState, ...]
    pool: tuple[PoolEntry, ...]
    next_step: JobVector
    status: JobVector
    left: int
    job_end: JobVector = JobVector.filled(0, 0)
    candidates: tuple[PoolEntry, ...] = ()
    completed_chunks: tuple[tuple[Run, ...], ...] = ()
    log_chunks: tuple[tuple[LogEntry, ...], ...] = ()
    aborts: int = 0
    decisions: int = 0

    @property
    def done(self) -> bool:
        return self.left == 0

    @property
    def completed(self) -> tuple[Run, ...]:
        """Every completed run, in completion order."""
        return tuple(run for chunk in self.completed_chunks for run in chunk)

    @property
    def log(self) -> tuple[LogEntry, ...]:
        """The trajectory so far, oldest first."""
        return tuple(entry for chunk in self.log_chunks for entry in chunk)


@dataclass(frozen=True, slots=True)
class OpInfo:
    """Static facts of one operation: its job and route position, true durations by machine
    index, and the piecewise-known information ``(until, value)`` sorted by time."""

    name: str
    job: int
    pos: int
    release: int
    true: Mapping[int, int]
    machines: tuple[int, ...]
    old_routes: tuple[tuple[int, tuple[int, ...]], ...]
    old_estimates: tuple[tuple[int, Mapping[int, int]], ...]
    settled: int  # from this time on, everything about the op is known


@dataclass(frozen=True, slots=True)
class JobInfo:
    """Static facts of a job: route (global op indices), realised or withdrawn, cancel time,
    piecewise due dates and weights ``(until, old value)`` and the time its route is settled."""

    job: Job
    ops: tuple[int, ...]
    realised: bool
    cancel: int | None
    old_due: tuple[tuple[int, int], ...]
    old_weight: tuple[tuple[int, int], ...]
    settled: int


def set_at(items: tuple, index: int, value: object) -> tuple:
    """A copy of ``items`` with entry ``index`` replaced by ``value``."""
    return items[:index] + (value,) + items[index + 1:]


def append_chunked(chunks: tuple[tuple, ...], item: object, size: int = 256) -> tuple[tuple, ...]:
    """``chunks`` with ``item`` appended to the last chunk (a new chunk when it holds ``size``)."""
    # an append copies one chunk and the chunk index — O(size + n/size), not O(n) — and, unlike a
    # linked list, the result compares and pickles without deep recursion
    if chunks and len(chunks[-1]) < size:
        return (*chunks[:-1], (*chunks[-1], item))
    return (*chunks, (item,))


def piecewise(changes: tuple[tuple[int, object], ...], t: int, final: object) -> object:
    """The value in force at ``t``: the old value of the first change after ``t``, else ``final``."""
    for until, old in changes:
        if t < until:
            return old
    return final
