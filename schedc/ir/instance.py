"""The instance and family-spec roots of the IR."""

from __future__ import annotations

from typing import Literal

from schedc.core.diagnostics import Span
from schedc.ir.nodes import Activity, Calendar, Entity, EntityClass, Meta, Node, Resource, SlotDecision
from schedc.kinds import AnyConstraint
from schedc.kinds.measures import Measure, Term, terms_of

Structure = Literal["interval", "slot"]


class Objective(Node, frozen=True, kw_only=True):
    """What is minimised: ``makespan`` (``max_a E_a``), ``penalty`` (the weighted sum of the
    penalties of all active soft constraints), one of the due-date and setup measures of
    :mod:`schedc.kinds.measures`, or (``measure = "sum"``) the weighted sum of ``terms``."""

    sense: Literal["minimize"] = "minimize"
    measure: Measure
    terms: tuple[Term, ...] = ()

    def measures(self) -> tuple[str, ...]:
        """Every measure the objective reads (the terms of a sum, or the one measure)."""
        return tuple(t.measure for t in terms_of(self.measure, self.terms))


class PlanStep(Node, frozen=True, kw_only=True):
    """One statement category of the rendering plan; ``shuffle`` allows reordering its items."""

    category: str
    shuffle: bool = False


class Family(Node, frozen=True, kw_only=True):
    """A family spec: what all instances of a problem class share.

    ``objective`` is what instances minimise by default; ``objectives`` (``objective [makespan
    penalty]`` in the text, the first being the default) lists every measure they may choose.
    ``kinds`` lists the constraint kinds its instances may use; ``classes`` the entity
    classes (slot families) with their attribute schemas; ``decision`` what is assigned.
    ``answer`` is the answer line format (placeholders ``<job> <step> <activity> <start>
    <mode> <machine> <agent> <value> <day> <period>``) and ``answer_header`` an optional first
    line (``<count>``: the number of answer lines). ``rename`` gives canonical display names
    (IR prefix → word: ``J`` → ``Job ``), ``day_names`` how days are shown (0-based, 1-based,
    day of the month). ``roles`` maps theme roles to the words used for them, ``plan`` orders
    the statement categories, ``background`` states the domain rules.
    """

    name: str
    title: str = ""
    structure: Structure
    objective: Measure
    objectives: tuple[Measure, ...] = ()
    kinds: tuple[str, ...] = ()
    classes: tuple[EntityClass, ...] = ()
    decision: SlotDecision | None = None
    answer: str = ""
    answer_header: str = ""
    rename: tuple[tuple[str, str], ...] = ()
    day_names: Literal["index0", "index1", "date"] = "index0"
    roles: tuple[tuple[str, str], ...] = ()
    plan: tuple[PlanStep, ...] = ()
    background: str = ""

    def allows(self, measure: str) -> bool:
        """Whether instances of this family may minimise ``measure`` (every term of a sum)."""
        return measure in (self.objectives or (self.objective,))

    def entity_class(self, name: str) -> EntityClass | None:
        return next((c for c in self.classes if c.name == name), None)


class Instance(Node, frozen=True, kw_only=True):
    """One problem instance: its data, constraints and objective, under a family spec.

    ``horizon`` (interval families): every activity must end by it, ``E_a ≤ horizon``
    (:func:`~schedc.kinds.timing.horizon_violations`); ``horizon_span`` is where it is written.
    """

    name: str
    family: str
    meta: Meta = Meta()
    horizon: int | None = None
    horizon_span: Span | None = None
    calendar: Calendar | None = None
    resources: tuple[Resource, ...] = ()
    activities: tuple[Activity, ...] = ()
    entities: tuple[Entity, ...] = ()
    constraints: tuple[AnyConstraint, ...] = ()  # type: ignore[valid-type]
    objective: Objective
