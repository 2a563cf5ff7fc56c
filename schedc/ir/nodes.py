"""The typed scheduling IR: entities, time, metadata and the instance.

Every node is a frozen, keyword-only :class:`msgspec.Struct`; closed tagged unions are
used where a category has several forms (constraint kinds live in :mod:`schedc.kinds`).
Every node that a user writes keeps its :class:`~schedc.core.diagnostics.Span` so that
diagnostics and verifier messages can point back at the source. Spans never take part
in IR equality as the project uses it (:func:`schedc.ir.equal_ignoring_spans`).

Two decision structures cover all families (reference/README.md §1):

* **interval scheduling** — :class:`Activity` nodes with one or more :class:`Mode`\\ s, each
  mode a duration and a use of :class:`Resource`\\ s; decisions are a start time and a mode
  per activity;
* **slot assignment** — a :class:`Calendar` of days × periods, entities of a declared class
  (the *agents*, e.g. nurses or courses) and values of another class (e.g. shift types or
  rooms); the decision is a set of assignments ``x[agent, slot, value] ∈ {0, 1}``
  (:class:`SlotDecision` states which classes play which role).
"""

from __future__ import annotations

import datetime as _dt
from typing import Literal

import msgspec

from schedc.core.diagnostics import Span

AttrValue = int | str | tuple[str, ...]
"""An entity attribute value: an integer, a name/string, or a list of names."""

AttrType = Literal["int", "name", "names", "str"]
ResourceKind = Literal["unary", "renewable", "nonrenewable"]
Difficulty = Literal["easy", "medium", "hard"]
BksKind = Literal["optimal", "upper_bound"]
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


class Node(msgspec.Struct, frozen=True, kw_only=True):
    """Base of every IR node: immutable, keyword-only, with an optional source span."""

    span: Span | None = None


# --------------------------------------------------------------------------- metadata


class Meta(Node, frozen=True, kw_only=True):
    """Provenance and reference values of an instance.

    ``bks`` is the best known objective value (minimisation); ``bks_kind`` is ``optimal``
    when a matching lower bound proves it. ``difficulty`` is the benchmark tier.

    A derived instance (``schedc tighten``, ``schedc perturb``) records what it was made from:
    ``base`` (the base instance's name), ``derivation`` (``tighten``, ``sat`` or ``boundary``),
    ``seed``, ``factor`` (tightening factor, as written), ``reference`` (the base objective value
    z* it was derived against) and ``changes`` (the change list, ``; ``-separated).
    """

    source: str | None = None
    bks: int | None = None
    bks_kind: BksKind | None = None
    lower_bound: int | None = None
    difficulty: Difficulty | None = None
    bks_source: str | None = None
    base: str | None = None
    derivation: str | None = None
    seed: int | None = None
    factor: str | None = None
    reference: int | None = None
    changes: str | None = None


# --------------------------------------------------------------------------- interval scheduling


class Resource(Node, frozen=True, kw_only=True):
    """A resource of an interval family.

    ``unary``: capacity 1, no two intervals using it overlap (a machine).
    ``renewable``: at every time t, the demands of the running activities sum to at most
    ``capacity``. ``nonrenewable``: the consumptions of all activities (in their chosen
    modes) sum to at most ``capacity`` over the whole project.
    """

    name: str
    kind: ResourceKind
    capacity: int = 1


class Use(msgspec.Struct, frozen=True, kw_only=True):
    """A mode's demand (renewable, unary) or consumption (nonrenewable) of one resource."""

    resource: str
    amount: int = 1


class Mode(msgspec.Struct, frozen=True, kw_only=True):
    """One way to execute an activity: a processing time and the resources it uses.

    Only non-zero uses are stored. Modes are numbered 1.. in their order in the activity.
    """

    duration: int
    uses: tuple[Use, ...] = ()


class Activity(Node, frozen=True, kw_only=True):
    """An interval to schedule: start ``S ≥ 0`` and exactly one mode, which fixes ``E = S + d``.

    ``job``/``step`` place the activity on a job route (job shop families): the activity is
    step ``step`` (1-based) of job ``job``.
    """

    name: str
    modes: tuple[Mode, ...]
    job: str | None = None
    step: int | None = None


# --------------------------------------------------------------------------- slot assignment


class Calendar(Node, frozen=True, kw_only=True):
    """The time grid of a slot family: ``days`` days of ``periods_per_day`` periods.

    Slot (period) index ``p = day · periods_per_day + period``; days are 0-based. When
    ``start_date`` is given, day 0 is that date and weekdays follow from it; otherwise
    ``start_weekday`` (if given) names the weekday of day 0.
    """

    days: int
    periods_per_day: int = 1
    start_date: _dt.date | None = None
    start_weekday: str | None = None

    @property
    def slots(self) -> int:
        return self.days * self.periods_per_day

    def weekday(self, day: int) -> str | None:
        """The weekday name of ``day`` (0-based), or None when the calendar has no anchor."""
        first = self.first_weekday_index()
        return None if first is None else WEEKDAYS[(first + day) % 7]

    def first_weekday_index(self) -> int | None:
        if self.start_date is not None:
            return self.start_date.weekday()
        if self.start_weekday is not None:
            return WEEKDAYS.index(self.start_weekday)
        return None


class AttributeDecl(Node, frozen=True, kw_only=True):
    """A typed attribute of an entity class: ``int``, ``name``, ``names`` (list) or ``str``."""

    name: str
    type: AttrType


class EntityClass(Node, frozen=True, kw_only=True):
    """A class of entities declared by a family spec, with its attribute schema."""

    name: str
    attributes: tuple[AttributeDecl, ...] = ()

    def attribute(self, name: str) -> AttributeDecl | None:
        return next((a for a in self.attributes if a.name == name), None)


class Entity(Node, frozen=True, kw_only=True):
    """A named entity of class ``cls`` with attribute values following the class schema."""

    name: str
    cls: str
    attrs: dict[str, AttrValue] = {}


class SlotDecision(Node, frozen=True, kw_only=True):
    """What a slot family decides: assignments ``x[agent, slot, value] ∈ {0, 1}``.

    ``agent`` and ``value`` are entity classes; ``grain`` says whether a slot is a whole day
    (``day``) or one period of a day (``period``). ``free`` names the value that means
    "off" when the family lists it explicitly (NSPLib); otherwise a free slot is one with
    no assignment (INRC).
    """

    agent: str
    value: str
    grain: Literal["day", "period"] = "day"
    free: str | None = None
