"""Configuration of a dynamic flexible job shop family: a TOML file, validated, expanded into a grid.

A configuration names a plant (machines with a speed and a group; process templates that are
routes over machine groups with mean work per step and a job-mix share), the scale (arrival
window ``H`` and optionally a fixed job count ``N_fix``), the arrival-rate pattern, the target
metrics, the dynamic scenario probabilities, the objective, a seed and the calibration switch.

Every scalar target may be a list: the configuration then stands for the cartesian product of
its lists (:func:`expand`), one :class:`ConfigPoint` per combination, in row-major order of the
fields ``utilisation, arrival_scv, processing_scv, tightness, disturbance, imbalance``.
``joint = [["arrival_scv", "processing_scv"]]`` ties targets together: the lists of a joint group
have the same length and are zipped into one axis (level k of each together), placed where the
group's first field stands in that order. Point
``i`` is named ``<name>_<i:03d>`` (just ``<name>`` when the grid has one point) and gets the
seed ``seed + i``, so any point can be regenerated alone from its name and seed.

Errors are :class:`~schedc.core.diagnostics.SchedcError` diagnostics naming the file, the line when
it can be found, the key path (``$.plant.machines[0].speed``) and what was expected:
E711 unreadable file, E712 malformed TOML, E713 wrong shape (unknown key, wrong type, missing
key), E714 a value out of its domain or an inconsistent reference.
"""

from __future__ import annotations

import itertools
import math
import re
import tomllib
from pathlib import Path
from typing import Literal

import msgspec

from schedc.core.diagnostics import Diagnostic, SchedcError, Span


class _Spec(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Base of every configuration table: immutable, keyword-only, unknown keys rejected."""


class MachineSpec(_Spec):
    """A machine of ``group`` processing ``speed`` work units per time unit (at most 2 decimals)."""

    name: str
    group: str
    speed: float = 1.0


class TemplateSpec(_Spec):
    """A process template: step ``k`` runs on a machine of group ``route[k]`` with mean work ``work[k]``.

    ``share`` is its (unnormalised) weight in the job mix; ``priority`` the tardiness weight of its jobs.
    """

    name: str
    route: tuple[str, ...]
    work: tuple[float, ...]
    share: float = 1.0
    priority: int = 1


class Plant(_Spec):
    """Machines and process templates."""

    machines: tuple[MachineSpec, ...]
    templates: tuple[TemplateSpec, ...]

    def groups(self) -> tuple[str, ...]:
        """Machine groups in order of first appearance."""
        return tuple(dict.fromkeys(m.group for m in self.machines))


class Scale(_Spec):
    """Arrival window ``[0, horizon)``; ``jobs`` fixes the number of arrivals (N_fix) when given."""

    horizon: int
    jobs: int | None = None


class Arrivals(_Spec):
    """Arrival-rate modulation m(t): ``constant`` 1; ``periodic`` 1 + A sin(2πt/T); ``trend`` 1 + A(2t/H − 1)."""

    pattern: Literal["constant", "periodic", "trend"] = "constant"
    amplitude: float = 0.0
    period: float = 0.0


class Window(_Spec):
    """Bottleneck window: group ``group`` should run at utilisation ``utilisation`` during ``[start, end)``."""

    start: int
    end: int
    group: str
    utilisation: float


Grid = float | tuple[float, ...]


class TargetsSpec(_Spec):
    """Target metrics (see :mod:`schedc.dynamic.metrics` for their definitions); lists expand into a grid.

    ``joint`` lists groups of target names whose lists vary together (zipped, not crossed).
    """

    utilisation: Grid
    arrival_scv: Grid = 1.0
    processing_scv: Grid = 0.5
    tightness: Grid = 3.0
    disturbance: Grid = 0.0
    imbalance: Grid | None = None
    bottlenecks: tuple[Window, ...] = ()
    joint: tuple[tuple[str, ...], ...] = ()


class TargetPoint(_Spec):
    """One combination of targets: ρ*, c_a²*, c_p²*, τ*, δ*, χ* (optional) and the bottleneck windows."""

    utilisation: float
    arrival_scv: float
    processing_scv: float
    tightness: float
    disturbance: float
    imbalance: float | None = None
    bottlenecks: tuple[Window, ...] = ()


class Scenarios(_Spec):
    """Dynamic scenario probabilities and parameters.

    Per job: ``cancel``, ``rework`` (one extra operation), ``priority_change`` (``priority_mode``
    ``"any"``: another weight in 1..4; ``"promote"``: the weight rises by one), ``due_date_change``
    (new allowance = allowance × U[lo, hi] with ``due_date_multiplier = [lo, hi]``; ``[0.5, 0.5]``
    halves it, never below the job's expected processing time);
    per arrival epoch: ``batch`` (the epoch brings max(2, round(N(batch_mean, batch_sd))) jobs);
    per operation: ``route_change``, ``processing_time_change`` (true times = estimate × U[lo, hi]
    with ``processing_multiplier = [lo, hi]``, or × one of ``processing_multiplier_set`` drawn
    uniformly when that list is given). Preventive maintenance takes ``maintenance_duration`` (each
    occurrence max(1, round(N(duration, maintenance_duration_sd))), below the interval) every
    ``maintenance_interval`` time units on every machine (0 = none); breakdown repairs last
    ``repair_mean`` time units on average (exponential).
    """

    cancel: float = 0.0
    rework: float = 0.0
    priority_change: float = 0.0
    priority_mode: Literal["any", "promote"] = "any"
    route_change: float = 0.0
    due_date_change: float = 0.0
    due_date_multiplier: tuple[float, float] = (0.7, 1.3)
    processing_time_change: float = 0.0
    processing_multiplier: tuple[float, float] = (0.8, 1.25)
    processing_multiplier_set: tuple[float, ...] = ()
    batch: float = 0.0
    batch_mean: float = 3.0
    batch_sd: float = 1.0
    maintenance_interval: int = 0
    maintenance_duration: int = 0
    maintenance_duration_sd: float = 0.0
    repair_mean: float = 20.0

    def mean_multiplier(self) -> float:
        """Expected processing-time multiplier m̄ of a processing-time change."""
        if self.processing_multiplier_set:
            return sum(self.processing_multiplier_set) / len(self.processing_multiplier_set)
        return (self.processing_multiplier[0] + self.processing_multiplier[1]) / 2


class CalibrateSpec(_Spec):
    """Calibration switch and options.

    ``method``: ``sesc`` (event-space, :mod:`schedc.dynamic.calibrate`), ``baseline`` (random search
    over the generator inputs), ``moo`` / ``hybrid`` (NSGA-II, :mod:`schedc.dynamic.moo`, needs the
    ``moo`` extra). ``tolerance``: per-metric relative tolerance of schedc's own strict success (and
    of SESC's stopping test); ``max_iter`` / ``patience``: SESC steps at most / steps without
    improvement before stopping; ``budget``: baseline evaluations. ``selection``: SESC's strategy
    choice — ``impact`` (ranked by impact vectors and the penalty φ, eq. 32) or ``exhaustive`` (every
    operator evaluated each step); ``lambda_soft``, ``lambda_hard``, ``epsilon_tol``: φ's weights and
    the band within which a metric counts as satisfied. ``thresholds`` (per metric key, e.g.
    ``imbalance = 0.15``) and ``l2_tolerance``: the paper's strict/relaxed success
    (:mod:`schedc.dynamic.success`; defaults documented there). ``without``: SESC operator families left
    out, for the operator ablation of DynaSchedBench Table g-3 — ``arrival`` (rate correction and renewal
    resampling), ``processing`` (processing-time resampling), ``slack`` (slack scaling), ``bottleneck``
    (outage engineering and window swapping), ``imbalance`` (group rebalancing); each is removed both as
    a move and as a repair after other moves (:func:`schedc.dynamic.calibrate.operator_table`).
    """

    enabled: bool = False
    method: Literal["sesc", "baseline", "moo", "hybrid"] = "sesc"
    tolerance: float = 0.05
    max_iter: int = 40
    patience: int = 3
    budget: int = 40
    selection: Literal["impact", "exhaustive"] = "impact"
    lambda_soft: float = 1.0
    lambda_hard: float = 100.0
    epsilon_tol: float = 0.05
    thresholds: dict[str, float] = {}
    l2_tolerance: float = 0.1
    without: list[Literal["arrival", "processing", "slack", "bottleneck", "imbalance"]] = []


class DfjspConfig(_Spec):
    """A whole configuration file."""

    name: str
    plant: Plant
    scale: Scale
    targets: TargetsSpec
    arrivals: Arrivals = Arrivals()
    scenarios: Scenarios = Scenarios()
    objective: Literal["makespan", "tardiness"] = "tardiness"
    seed: int = 0
    calibrate: CalibrateSpec = CalibrateSpec()


class ConfigPoint(_Spec):
    """One instance to generate: a grid point with its own name, seed and scalar targets."""

    name: str
    index: int
    seed: int
    plant: Plant
    scale: Scale
    arrivals: Arrivals
    targets: TargetPoint
    scenarios: Scenarios
    objective: Literal["makespan", "tardiness"]
    calibrate: CalibrateSpec


GRID_FIELDS = ("utilisation", "arrival_scv", "processing_scv", "tightness", "disturbance", "imbalance")


# --------------------------------------------------------------------------- loading


def load_config(path: str | Path) -> DfjspConfig:
    """Read and validate a configuration file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SchedcError.at("E711", f"cannot read configuration: {exc.strerror or exc}", file=str(path)) from None
    return parse_config(text, str(path))


def parse_config(text: str, file: str = "<input>") -> DfjspConfig:
    """Validate the TOML ``text`` (named ``file`` in messages) into a :class:`DfjspConfig`."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line, column = _toml_position(str(exc))
        raise SchedcError.at("E712", f"malformed TOML: {_strip_position(str(exc))}", file=file, line=line,
                             column=column, source=text) from None
    try:
        config = msgspec.convert(raw, DfjspConfig)
    except msgspec.ValidationError as exc:
        raise _shape_error(str(exc), text, file) from None
    problems = _check(config)
    if problems:
        raise SchedcError([Diagnostic(code="E714", message=f"{key}: {msg}", file=file, span=_locate(text, key))
                           for key, msg in problems], text)
    return config


def _toml_position(message: str) -> tuple[int | None, int]:
    """tomllib ends its messages with ``(at line L, column C)``."""
    found = re.search(r"\(at line (\d+), column (\d+)\)", message)
    return (int(found[1]), int(found[2])) if found else (None, 1)


def _strip_position(message: str) -> str:
    return re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)", "", message)


def _shape_error(message: str, text: str, file: str) -> SchedcError:
    """Turn msgspec's ``Expected X, got Y - at `$.a.b[0].c``` into ``$.a.b[0].c: expected X, got Y``."""
    found = re.match(r"(?s)(.*?)(?: - at `(\$[^`]*)`)?$", message)
    what, path = (found[1], found[2] or "$") if found else (message, "$")
    unknown = re.match(r"Object contains unknown field `([^`]+)`", what)
    if unknown:
        key = f"{path}.{unknown[1]}"
        what = "unknown key (not part of the configuration schema)"
    else:
        key = path
        what = what[:1].lower() + what[1:]
    missing = re.match(r"object missing required field `([^`]+)`", what)
    if missing:
        key, what = f"{path}.{missing[1]}", "missing required key"
    return SchedcError(Diagnostic(code="E713", message=f"{key}: {what}", file=file, span=_locate(text, key)), text)


def _locate(text: str, key: str) -> Span | None:
    """Best-effort position of key path ``$.a.b[i].c``: ``[a]``/``[[a.b]]`` headers (the i-th one for an
    array of tables), then ``c =`` keys, entering the i-th ``{...}`` of an inline array of tables.

    Returns the deepest position found (None when not even the first table is found); the message
    names the full path anyway.
    """
    parts = [p for p in re.split(r"\.|\[(\d+)\]", key.removeprefix("$")) if p]
    lines = text.split("\n")
    line, column, tables, inline, i = -1, 1, [], False, 0
    while i < len(parts):
        part = parts[i]
        index = int(parts[i + 1]) if i + 1 < len(parts) and parts[i + 1].isdigit() else None
        tables.append(part)
        header = None if inline else _header_line(lines, ".".join(tables), index or 0, max(line, 0))
        if header is not None:
            line, column = header, 1
        else:
            hit = _key_line(lines, part, max(line, 0), column if inline else 1)
            if hit is None:
                break
            line, column, inline = hit[0], hit[1], True
            if index is not None:
                line, column = _nth_brace(lines, line, column, index) or (line, column)
        i += 1 if index is None else 2
    return Span(line=line + 1, column=column) if line >= 0 else None


def _header_line(lines: list[str], table: str, index: int, start: int) -> int | None:
    pattern = re.compile(rf"^\s*\[\[?\s*{re.escape(table)}\s*\]\]?\s*(#.*)?$")
    hits = [n for n in range(start, len(lines)) if pattern.match(lines[n])]
    return hits[min(index, len(hits) - 1)] if hits else None


def _key_line(lines: list[str], key: str, start: int, column: int) -> tuple[int, int] | None:
    """(line, 1-based column) of the first ``key =`` at or after ``start:column``."""
    pattern = re.compile(rf"(^|[\s{{,]){re.escape(key)}\s*=")
    for n in range(start, len(lines)):
        found = pattern.search(lines[n], column - 1 if n == start else 0)
        if found:
            return n, found.start() + len(found[1]) + 1
    return None


def _nth_brace(lines: list[str], line: int, column: int, index: int) -> tuple[int, int] | None:
    """The ``index``-th ``{`` after a key of an inline array of tables (None if the value is no such array)."""
    rest = lines[line][column - 1:].partition("=")[2].strip()
    if not rest.startswith("[") or (rest != "[" and not rest[1:].lstrip().startswith("{")):
        return None
    seen = -1
    for n in range(line, len(lines)):
        start = column - 1 if n == line else 0
        for c in range(start, len(lines[n])):
            if lines[n][c] == "{":
                seen += 1
                if seen == index:
                    return n, c + 1
    return None


# --------------------------------------------------------------------------- semantic checks


def _check(config: DfjspConfig) -> list[tuple[str, str]]:
    """Every domain violation as (key path, message); empty when the configuration is sound."""
    return [*_check_plant(config.plant), *_check_scale(config.scale), *_check_arrivals(config.arrivals),
            *_check_targets(config.targets, config), *_check_scenarios(config.scenarios),
            *_check_calibrate(config.calibrate)]


def _check_plant(plant: Plant) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    if not plant.machines:
        out.append(("$.plant.machines", "expected at least one machine"))
    names = [m.name for m in plant.machines]
    for i, m in enumerate(plant.machines):
        if not m.speed > 0 or abs(m.speed * 100 - round(m.speed * 100)) > 1e-9:
            out.append((f"$.plant.machines[{i}].speed", f"expected a positive speed with at most 2 decimals, "
                                                         f"got {m.speed}"))
        if names.count(m.name) > 1:
            out.append((f"$.plant.machines[{i}].name", f"machine name {m.name!r} is used more than once"))
    groups = set(plant.groups())
    if not plant.templates:
        out.append(("$.plant.templates", "expected at least one process template"))
    for i, t in enumerate(plant.templates):
        where = f"$.plant.templates[{i}]"
        if not t.route:
            out.append((f"{where}.route", "expected a non-empty route"))
        if len(t.work) != len(t.route):
            out.append((f"{where}.work", f"expected one mean work per route step ({len(t.route)}), "
                                         f"got {len(t.work)}"))
        out += [(f"{where}.route[{k}]", f"unknown machine group {g!r} (groups: {', '.join(sorted(groups))})")
                for k, g in enumerate(t.route) if g not in groups]
        out += [(f"{where}.work[{k}]", f"expected a positive mean work, got {w}")
                for k, w in enumerate(t.work) if not w > 0]
        if not t.share > 0:
            out.append((f"{where}.share", f"expected a positive job-mix share, got {t.share}"))
        if t.priority < 1:
            out.append((f"{where}.priority", f"expected a tardiness weight ≥ 1, got {t.priority}"))
    return out


def _check_scale(scale: Scale) -> list[tuple[str, str]]:
    out = []
    if scale.horizon < 1:
        out.append(("$.scale.horizon", f"expected a positive arrival window, got {scale.horizon}"))
    if scale.jobs is not None and scale.jobs < 1:
        out.append(("$.scale.jobs", f"expected a positive job count, got {scale.jobs}"))
    return out


def _check_arrivals(arrivals: Arrivals) -> list[tuple[str, str]]:
    out = []
    if arrivals.pattern != "constant" and not 0 <= arrivals.amplitude < 1:
        out.append(("$.arrivals.amplitude", f"expected 0 ≤ A < 1 (the rate must stay positive), "
                                            f"got {arrivals.amplitude}"))
    if arrivals.pattern == "periodic" and not arrivals.period > 0:
        out.append(("$.arrivals.period", "a periodic pattern needs a positive period T"))
    return out


_DOMAINS: dict[str, tuple[float, float, str]] = {
    "utilisation": (0.0, 2.0, "0 < ρ* < 2"),
    "arrival_scv": (0.0, 25.0, "0 ≤ c_a² < 25"),
    "processing_scv": (0.0, 25.0, "0 ≤ c_p² < 25"),
    "tightness": (0.0, 100.0, "0 < τ* < 100"),
    "imbalance": (0.0, 10.0, "0 ≤ χ* < 10"),
}


_ZERO_ALLOWED = ("disturbance", "arrival_scv", "processing_scv", "imbalance")  # a zero target is a level


def _check_targets(targets: TargetsSpec, config: DfjspConfig) -> list[tuple[str, str]]:
    out = []
    for field in GRID_FIELDS:
        values = _grid_values(getattr(targets, field))
        if not values and field != "imbalance":
            out.append((f"$.targets.{field}", "expected a number or a non-empty list"))
        for v in values:
            low, high, text = _DOMAINS.get(field, (-1.0, 1.0, "0 ≤ δ* < 1"))
            if not (low < v < high or (v == 0 and field in _ZERO_ALLOWED)):
                out.append((f"$.targets.{field}", f"expected {text}, got {v}"))
    out += _check_joint(targets)
    groups = set(config.plant.groups())
    for i, w in enumerate(targets.bottlenecks):
        where = f"$.targets.bottlenecks[{i}]"
        if not 0 <= w.start < w.end <= config.scale.horizon:
            out.append((where, f"expected 0 ≤ start < end ≤ horizon ({config.scale.horizon}), "
                               f"got [{w.start}, {w.end})"))
        if w.group not in groups:
            out.append((f"{where}.group", f"unknown machine group {w.group!r}"))
        if not 0 < w.utilisation < 2:
            out.append((f"{where}.utilisation", f"expected 0 < ρ_b* < 2, got {w.utilisation}"))
    return out


def _check_joint(targets: TargetsSpec) -> list[tuple[str, str]]:
    """A joint group names at least two distinct grid targets, each in one group only, with lists of one length."""
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for i, group in enumerate(targets.joint):
        where = f"$.targets.joint[{i}]"
        if len(group) < 2:
            out.append((where, f"expected at least two target names to vary jointly, got {list(group)}"))
        for k, field in enumerate(group):
            if field not in GRID_FIELDS:
                out.append((f"{where}[{k}]", f"unknown target {field!r} (expected one of {', '.join(GRID_FIELDS)})"))
            elif field in seen:
                out.append((f"{where}[{k}]", f"target {field!r} is already in a joint group"))
            seen.add(field)
        counts = {f: len(_grid_values(getattr(targets, f))) for f in group if f in GRID_FIELDS}
        if len(set(counts.values())) > 1:
            listed = ", ".join(f"{f} has {n}" for f, n in counts.items())
            out.append((where, f"expected lists of the same length (level k of each goes together), got {listed}"))
    return out


def _check_scenarios(s: Scenarios) -> list[tuple[str, str]]:
    out = []
    for field in ("cancel", "rework", "priority_change", "route_change", "due_date_change",
                  "processing_time_change", "batch"):
        value = getattr(s, field)
        if not 0 <= value <= 1:
            out.append((f"$.scenarios.{field}", f"expected a probability in [0, 1], got {value}"))
    if s.cancel == 1:  # the arrival rate compensates for cancellations: 1 − p_cancel must be positive
        out.append(("$.scenarios.cancel", "expected a probability below 1 (some jobs must remain), got 1.0"))
    for field in ("processing_multiplier", "due_date_multiplier"):
        low, high = getattr(s, field)
        if not 0 < low <= high:
            out.append((f"$.scenarios.{field}", f"expected 0 < lo ≤ hi, got [{low}, {high}]"))
    out += [(f"$.scenarios.processing_multiplier_set[{k}]", f"expected a positive multiplier, got {m}")
            for k, m in enumerate(s.processing_multiplier_set) if not m > 0]
    if not s.maintenance_duration_sd >= 0:
        out.append(("$.scenarios.maintenance_duration_sd",
                    f"expected a non-negative standard deviation, got {s.maintenance_duration_sd}"))
    if s.batch_mean < 2 or s.batch_sd < 0:
        out.append(("$.scenarios.batch_mean", "expected batch_mean ≥ 2 and batch_sd ≥ 0"))
    if s.maintenance_interval < 0 or s.maintenance_duration < 0 or (
            s.maintenance_interval and s.maintenance_duration >= s.maintenance_interval):
        out.append(("$.scenarios.maintenance_duration", "expected 0 ≤ duration < interval"))
    if not s.repair_mean >= 1:
        out.append(("$.scenarios.repair_mean", f"expected a mean repair time ≥ 1, got {s.repair_mean}"))
    return out


THRESHOLD_KEYS = ("utilisation", "arrival_scv", "processing_scv", "tightness", "disturbance", "imbalance",
                  "bottleneck")


def _check_calibrate(c: CalibrateSpec) -> list[tuple[str, str]]:
    out = []
    for field in ("tolerance", "epsilon_tol", "l2_tolerance"):
        if not 0 < getattr(c, field) < 1:
            out.append((f"$.calibrate.{field}", f"expected 0 < {field} < 1, got {getattr(c, field)}"))
    for field in ("max_iter", "patience", "budget"):
        if getattr(c, field) < 1:
            out.append((f"$.calibrate.{field}", f"expected a positive count, got {getattr(c, field)}"))
    for field in ("lambda_soft", "lambda_hard"):
        if not getattr(c, field) >= 0:
            out.append((f"$.calibrate.{field}", f"expected a non-negative weight, got {getattr(c, field)}"))
    for key, value in c.thresholds.items():
        if key not in THRESHOLD_KEYS:
            out.append((f"$.calibrate.thresholds.{key}",
                        f"unknown metric (expected one of {', '.join(THRESHOLD_KEYS)})"))
        elif not 0 < value < 10:
            out.append((f"$.calibrate.thresholds.{key}", f"expected a positive relative tolerance, got {value}"))
    return out


# --------------------------------------------------------------------------- grid expansion


def _grid_values(value: Grid | None) -> tuple[float, ...]:
    if value is None:
        return ()
    return tuple(value) if isinstance(value, tuple) else (value,)


def _axes(targets: TargetsSpec) -> list[tuple[tuple[str, ...], list[tuple[float | None, ...]]]]:
    """Expansion axes in :data:`GRID_FIELDS` order: (fields, their level tuples); a joint group is one
    axis (its lists zipped) at its first field's place, every other target an axis of its own."""
    group_of = {f: tuple(sorted(g, key=GRID_FIELDS.index)) for g in targets.joint for f in g}
    axes: list[tuple[tuple[str, ...], list[tuple[float | None, ...]]]] = []
    for field in GRID_FIELDS:
        fields = group_of.get(field, (field,))
        if fields[0] != field:
            continue
        lists = [_grid_values(getattr(targets, f)) or (None,) for f in fields]
        axes.append((fields, list(zip(*lists, strict=True))))
    return axes


def grid_size(config: DfjspConfig) -> int:
    """Number of points :func:`expand` returns: the product of the axis lengths (a joint group is one axis)."""
    return math.prod(len(levels) for _, levels in _axes(config.targets))


def expand(config: DfjspConfig) -> list[ConfigPoint]:
    """The grid of a configuration: one point per combination of axis levels (row-major order)."""
    axes = _axes(config.targets)
    combos = list(itertools.product(*(levels for _, levels in axes)))
    points = []
    for index, combo in enumerate(combos):
        values = {f: v for (fields, _), levels in zip(axes, combo, strict=True)
                  for f, v in zip(fields, levels, strict=True)}
        targets = TargetPoint(**values, bottlenecks=config.targets.bottlenecks)
        name = config.name if len(combos) == 1 else f"{config.name}_{index:03d}"
        points.append(ConfigPoint(name=name, index=index, seed=config.seed + index, plant=config.plant,
                                  scale=config.scale, arrivals=config.arrivals, targets=targets,
                                  scenarios=config.scenarios, objective=config.objective,
                                  calibrate=config.calibrate))
    return points
