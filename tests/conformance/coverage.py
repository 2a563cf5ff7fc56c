"""The kinds × parameter forms the generator must reach, computed from the kinds registry.

For every kind of :data:`schedc.kinds.KINDS` the expected forms are read off its struct:

* the modality: ``hard``, ``soft``, ``inactive``;
* every parameter field, by its annotation: each value of a ``Literal``, ``true``/``false`` of a
  ``bool``, ``absent`` of an optional field, ``@attr`` of an attribute bound, ``negative`` of an
  integer that may be negative, ``class``/``class[attr=value]``/``class[names]`` of a selector,
  ``work``/``free``/``values`` of a value filter, ``days`` and each weekend definition of a window;
* every field of the rows of its table, the same way (``rows.relation=s=e``, ``rows.deadline=absent``);
* the text forms of :data:`TEXT_FORMS` (chains and fan-outs, the compact coverage row, ``-`` cells).

A form is *observed* when some drawn spec's IR (read before the semantic pass, so that forms the pass
rejects count too) has a constraint of that kind in that form. A kind added to the registry, or a field
added to a kind, adds expected forms the generator does not reach: ``test_conformance.py`` then fails
until :mod:`tests.conformance.strategies` draws them (or :data:`UNREACHED` says why it may not).
"""

from __future__ import annotations

import re
import tempfile
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

import msgspec
from hypothesis import HealthCheck, given, settings

from schedc.ir import Family, Instance
from schedc.kinds import KINDS, AttrRef, Selector, ValueFilter, Windows, kind_name
from schedc.kinds.context import WEEKEND_DEFINITIONS
from schedc.kinds.measures import MEASURES
from schedc.lang.family import load_family
from schedc.lang.parser import parse_instance_text

Predicate = Callable[[Any], bool]
COMMON = frozenset({"id", "hard", "weight", "active", "reason", "span"})

#: forms of particular fields that the annotations do not show (a sentinel value of an int or a name)
EXTRA: dict[tuple[str, str], dict[str, Predicate]] = {
    ("assignment_cost", "rows.day"): {"*": lambda v: v == -1},
    ("assignment_cost", "rows.value"): {"*": lambda v: v == "*"},
    ("coverage", "rows.period"): {"0": lambda v: v == 0},
}

#: forms only the text shows: kind -> form -> a pattern over the statement's text
TEXT_FORMS: dict[str, dict[str, str]] = {
    "precedence_lag": {"chain": r"\n\s+\S+ \S*[-=]\S* \S+ \S*[-=]\S* \S+",
                       "fan-out": r"\n\s+\S+ \S*[-=]\S* \S+ [^-=\s]+\n", "arrow ->": r" ->[+-]?\d* ",
                       "arrow e->s": r" e->s", "delay +0": r"\+0 "},
    "coverage": {"compact row": r"\n\s+\d+ \S+=", "row day value min max": r"\n\s+\d+ [^=\s]+ \S+ \S+\n",
                 "row day period value min max": r"\n\s+\d+ \d+ [^=\s]+ \S+ \S+\n", "range LO..HI": r"=\d+\.\.\d+",
                 "range LO..": r"=\d+\.\.(\s|$)", "range ..HI": r"=\.\.\d+", "exact N": r"=\d+(\s|$)",
                 "absent bound -": r" - "},
    "time_window": {"deadline -": r"\n\s+\S+ \d+ - "},
    "assignment_cost": {"!value": r" !\S+ "},
    "resource_downtime": {"quoted label": r'"'},
    "setup_times": {"constant row * *": r"\n\s+\S+ \* \* \d+", "class row JOB JOB": r"\n\s+\S+ J\d+ J\d+ \d+(\s|$)"},
    "one_per_slot": {"explicit per=agent": r"per=agent"},
}

#: expected forms the generator does not draw, and why
UNREACHED: dict[tuple[str, str], str] = {
    ("objective_bound", "soft"): "E212: the semantic pass rejects a soft objective_bound (tests/test_diagnostics.py)",
    ("objective_bound", "inactive"): "the generator adds the bound as an active rule only",
    ("coverage", "rows.day=negative"): "the row reader refuses a negative day (E1xx)",
    ("coverage", "rows.period=negative"): "the row reader refuses a negative period (E1xx)",
    ("unavailability", "rows.day=negative"): "the row reader refuses a negative day (E1xx)",
    ("unavailability", "rows.period=negative"): "the row reader refuses a negative period (E1xx)",
    ("window_pattern_cost", "rows.cost=negative"): "the row reader refuses a negative window cost (E1xx)",
    ("skill_demand", "rows.day=negative"): "the row reader refuses a negative day (E1xx)",
    ("skill_demand", "rows.period=negative"): "the row reader refuses a negative period (E1xx)",
}

#: forms of whole specs: families, calendars, objectives, data layouts
SPEC_FORMS = ("user family", "built-in family", "interval", "slot", "horizon", "jobs table", "activities table",
              "several modes", "a mode with several resources", "zero duration", "family without a job role",
              "calendar start_date", "calendar start_weekday", "periods", "free value", "weighted sum objective",
              *(f"objective {m}" for m in MEASURES))


def _forms_of(tp: Any) -> dict[str, Predicate]:
    """The forms of a value of annotation ``tp`` (see the module docstring)."""
    origin = get_origin(tp)
    if origin is typing.Annotated:
        inner = get_args(tp)[0]
        return {k: v for k, v in _forms_of(inner).items() if k != "negative"}  # a minimum excludes negatives
    if origin in (typing.Union, types.UnionType):
        out: dict[str, Predicate] = {}
        for arg in get_args(tp):
            out.update(_forms_of(arg))
        return out
    if origin is Literal:
        return {str(v): (lambda x, v=v: x == v) for v in get_args(tp)}
    if origin is tuple:
        return {"list": lambda x: isinstance(x, tuple)}
    if tp is type(None):
        return {"absent": lambda x: x is None}
    if tp is bool:
        return {"true": lambda x: x is True, "false": lambda x: x is False}
    if tp is int:
        return {"int": lambda x: isinstance(x, int) and not isinstance(x, bool) and x >= 0,
                "negative": lambda x: isinstance(x, int) and not isinstance(x, bool) and x < 0}
    if tp is str:
        return {"name": lambda x: isinstance(x, str)}
    if tp is AttrRef:
        return {"@attr": lambda x: isinstance(x, AttrRef)}
    if tp is Selector:
        return {"class": lambda x: isinstance(x, Selector) and not x.where and not x.names,
                "class[attr=value]": lambda x: isinstance(x, Selector) and bool(x.where),
                "class[names]": lambda x: isinstance(x, Selector) and bool(x.names)}
    if tp is ValueFilter:
        return {mode: (lambda x, mode=mode: isinstance(x, ValueFilter) and x.mode == mode)
                for mode in ("work", "free", "values")}
    if tp is Windows:
        out = {"days": lambda x: isinstance(x, Windows) and x.over == "days"}
        out |= {f"weekends({w})": (lambda x, w=w: isinstance(x, Windows) and x.weekend == w)
                for w in WEEKEND_DEFINITIONS}
        return out
    raise TypeError(f"no forms known for the annotation {tp!r}: teach tests/conformance/coverage.py")


def _row_type(tp: Any) -> type[msgspec.Struct] | None:
    """The row struct of a table field's annotation ``tuple[Row, ...]``."""
    if get_origin(tp) is tuple:
        arg = get_args(tp)[0]
        if isinstance(arg, type) and issubclass(arg, msgspec.Struct):
            return arg
    return None


def field_forms(kind: str) -> dict[str, dict[str, Predicate]]:
    """Field path (``per``, ``rows.relation``) -> form -> predicate, for one kind."""
    cls = KINDS[kind]
    hints = typing.get_type_hints(cls, include_extras=True)
    out: dict[str, dict[str, Predicate]] = {}
    for name in cls.__struct_fields__:
        if name in COMMON:
            continue
        row = _row_type(hints[name])
        if row is None:
            out[name] = _forms_of(hints[name])
            continue
        row_hints = typing.get_type_hints(row, include_extras=True)
        for field in row.__struct_fields__:
            path = f"rows.{field}"
            out[path] = _forms_of(row_hints[field]) | EXTRA.get((kind, path), {})
    return out


def expected() -> set[tuple[str, str]]:
    """Every (kind, form) the generator must reach, and every spec form."""
    out = {("spec", form) for form in SPEC_FORMS}
    for kind in KINDS:
        out |= {(kind, m) for m in ("hard", "soft", "inactive")}
        for path, forms in field_forms(kind).items():
            out |= {(kind, f"{path}={form}") for form in forms}
        out |= {(kind, form) for form in TEXT_FORMS.get(kind, {})}
    return out - set(UNREACHED)


def observed(instance: Instance, family: Family, text: str, user: bool) -> set[tuple[str, str]]:
    """The (kind, form) pairs one spec shows (its IR read before the semantic pass, and its text)."""
    out = _spec_forms(instance, family, user)
    statements = _statements(text)
    for c in instance.constraints:
        kind = kind_name(c)
        out.add((kind, "inactive" if not c.active else ("hard" if c.hard else "soft")))
        for path, forms in field_forms(kind).items():
            for value in _values(c, path):
                out |= {(kind, f"{path}={form}") for form, test in forms.items() if test(value)}
        written = statements.get(c.id, "")
        out |= {(kind, form) for form, pattern in TEXT_FORMS.get(kind, {}).items() if re.search(pattern, written)}
    return out


def _values(c: Any, path: str) -> list[Any]:
    if not path.startswith("rows."):
        return [getattr(c, path)]
    field = path.removeprefix("rows.")
    return [getattr(row, field) for row in getattr(c, c.TABLE_FIELD or "")]


def _statements(text: str) -> dict[str, str]:
    """Constraint id -> its statement text (with the table), for the text forms."""
    out = {}
    for match in re.finditer(r"^(hard|soft \d+)( inactive \"[^\"]*\")? (\w+) (\S+)[^\n]*(\n(?:(?!hard |soft |minimize )"
                             r"[^\n]*\n)*)?", text, re.M):
        out[match.group(4)] = match.group(0)
    return out


def _spec_forms(instance: Instance, family: Family, user: bool) -> set[tuple[str, str]]:
    forms = {"user family" if user else "built-in family", family.structure}
    if instance.horizon is not None:
        forms.add("horizon")
    if any(a.job is not None for a in instance.activities):
        forms.add("jobs table")
    if any(a.job is None for a in instance.activities):
        forms.add("activities table")
    if any(len(a.modes) > 1 for a in instance.activities):
        forms.add("several modes")
    if any(len(m.uses) > 1 for a in instance.activities for m in a.modes):
        forms.add("a mode with several resources")
    if any(m.duration == 0 for a in instance.activities for m in a.modes):
        forms.add("zero duration")
    if any(a.job is not None for a in instance.activities) and "job" not in dict(family.roles):
        forms.add("family without a job role")
    cal = instance.calendar
    if cal is not None:
        forms |= {name for name, present in (("calendar start_date", cal.start_date is not None),
                                             ("calendar start_weekday", cal.start_weekday is not None),
                                             ("periods", cal.periods_per_day > 1)) if present}
    if family.decision is not None and family.decision.free is not None:
        forms.add("free value")
    if instance.objective.measure == "sum":
        forms.add("weighted sum objective")
    forms |= {f"objective {m}" for m in instance.objective.measures()}
    return {("spec", f) for f in forms}


def reached(per_form: float = 2.0, least: int = 15, unfocused: int = 60) -> set[tuple[str, str]]:
    """The (kind, form) pairs of specs drawn with a fixed seed: for each kind, ``per_form`` specs per form
    it expects (at least ``least``) focused on it, and ``unfocused`` specs of any kind (parsed without the
    semantic pass, so that forms it rejects count)."""
    from tests.conformance.strategies import Spec, specs

    wanted = expected()
    seen: set[tuple[str, str]] = set()

    def parse(spec: Spec) -> None:
        with tempfile.TemporaryDirectory(prefix="coverage-") as tmp:
            spec.write(Path(tmp))
            instance = parse_instance_text(spec.text, f"{spec.name}.sched", [Path(tmp)], check=False)
            family = load_family(instance.family, [Path(tmp)])
            seen.update(observed(instance, family, spec.text, spec.family_text is not None))

    draws = [(kind, None, unfocused if kind is None else max(least, round(per_form * sum(
        1 for k, _ in wanted if k == kind)))) for kind in [None, *sorted(KINDS)]]
    # a bound on each measure: the instance's objective decides the measure= of an objective_bound
    draws += [("objective_bound", measure, 3) for measure in (*MEASURES, "sum")]
    for kind, measure, count in draws:
        draw = settings(max_examples=count, derandomize=True, database=None, deadline=None,
                        suppress_health_check=list(HealthCheck))(given(spec=specs(kind, measure))(parse))
        draw()
    return seen
