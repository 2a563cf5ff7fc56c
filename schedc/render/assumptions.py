"""Background assumptions composed from the instance: each sentence states what applies, nothing else.

A family's ``background`` text frames the problem (what is scheduled, by whom); the shared
assumptions below follow it, each with the trigger that makes it apply — the structure, a
kind among the active constraints, or data the instance carries. So a job shop without
release dates is told that everything is available from time 0, one with release dates is
not; a shop without outages hears nothing about outages; only a shop with machine speeds is
told that the listed durations already include them. Every interval rendering states the
time model once: integer times from 0 and half-open intervals.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from schedc.ir import Family, Instance
from schedc.kinds import kind_name


class Assumption(NamedTuple):
    """One background sentence (a template over the role words ``r``) and when it applies."""

    id: str
    applies: Callable[[Instance, Family], bool]
    text: str


def _kinds(instance: Instance) -> set[str]:
    return {kind_name(c) for c in instance.constraints if c.active}


def _interval(instance: Instance, family: Family) -> bool:
    return family.structure == "interval"


def _hard_windows(instance: Instance) -> bool:
    """Whether a hard time window binds starts (a soft one only costs: every activity is still available
    from time 0, and its own rule sentence says what it costs)."""
    return any(kind_name(c) == "time_window" and c.hard for c in instance.constraints if c.active)


def _no_releases(instance: Instance, family: Family) -> bool:
    return _interval(instance, family) and not _hard_windows(instance)


def _has_jobs(instance: Instance) -> bool:
    return any(a.job is not None for a in instance.activities)


def _job_releases(instance: Instance, family: Family) -> bool:
    return _hard_windows(instance) and _has_jobs(instance)


def _activity_releases(instance: Instance, family: Family) -> bool:
    """Release dates of an instance without jobs: no sentence may speak of a job the activities belong to."""
    return _hard_windows(instance) and not _has_jobs(instance)


def _downtime(instance: Instance, family: Family) -> bool:
    return "resource_downtime" in _kinds(instance)


def _speeds(instance: Instance, family: Family) -> bool:
    return any("speed" in e.attrs for e in instance.entities if e.cls == "machine")


def _events(instance: Instance, family: Family) -> bool:
    return any(e.cls == "event" for e in instance.entities)


def _soft_rules(instance: Instance, family: Family) -> bool:
    return instance.objective.measure == "penalty" and any(not c.hard for c in instance.constraints if c.active)


def _all_hard(instance: Instance, family: Family) -> bool:
    active = [c for c in instance.constraints if c.active]
    return family.structure == "slot" and bool(active) and all(c.hard for c in active)


ASSUMPTIONS: tuple[Assumption, ...] = (
    Assumption("time_model", _interval,
               "Times are whole {{ r.times }} counted from 0. {{ (r.task|a)|upper_first }} that starts at time S "
               "and lasts d {{ r.times }} occupies the half-open interval [S, S + d): it has ended at time S + d, so "
               "{{ r.task|a }} that has to wait for it may start at exactly S + d."),
    Assumption("available_from_zero", _no_releases,
               "Every {{ r.task }} is available from time 0."),
    Assumption("release_dates", _job_releases,
               "Release dates are earliest start times: {{ r.task|a }} with a release date, or belonging to "
               "{{ r.job|a }} with one, may not start before it; {{ r.task|a }} without one is available from "
               "time 0."),
    Assumption("activity_release_dates", _activity_releases,
               "Release dates are earliest start times: {{ r.task|a }} with a release date may not start before "
               "it; {{ r.task|a }} without one is available from time 0."),
    Assumption("speeds", _speeds,
               "The processing times listed already include each {{ r.machine }}'s speed: use them exactly as "
               "given, without scaling them."),
    Assumption("downtime", _downtime,
               "A downtime window from a to b is the half-open interval [a, b): {{ r.task|a }} may end exactly at "
               "a or start exactly at b."),
    Assumption("events", _events,
               "The event log says when each piece of information became known; the schedule must fit the final, "
               "realised data stated here."),
    Assumption("soft_rules", _soft_rules,
               "Hard rules must always hold. Soft rules may be broken, but each breach adds the stated penalty; "
               "the goal is the smallest total penalty."),
    Assumption("all_hard", _all_hard,
               "Every rule stated below is hard: it must hold without exception."),
)
"""The shared assumptions, in the order they are stated."""


def applicable(instance: Instance, family: Family) -> list[Assumption]:
    """The assumptions that apply to ``instance``."""
    return [a for a in ASSUMPTIONS if a.applies(instance, family)]
