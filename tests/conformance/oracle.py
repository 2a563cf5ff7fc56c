"""The properties every drawn spec must have, checked on one spec at a time.

:func:`run` loads a :class:`~tests.conformance.strategies.Spec` from its files and holds each part of
schedc against the others:

* **load** — the spec parses and passes the semantic pass, or is rejected by a ``SchedcError`` whose
  every diagnostic names the file, a line and a column; the canonical text re-parses to the same IR;
* **optimum** — CP-SAT and HiGHS (the ``cpsat`` and ``pyomo`` backends) return the same optimum where
  both prove one, or both prove the spec infeasible; neither proves a bound the other's verified
  answer beats; a backend that refuses a form (E501) names one the semantic pass should have refused;
* **explain** — a spec both backends prove infeasible is explained as ``schedc solve`` does: a set of hard
  constraints, each with its position, that CP-SAT shows infeasible on their own;
* **verify** — every solver answer, written in the family's answer format and read back by the
  verifier, is complete and feasible, with the solver's objective and the same components; CP-SAT's
  model with every decision fixed to that answer scores each soft rule as the verifier does (term
  by term); every answer ends by the ``horizon``;
* **interpreter** — the claim interpreter of ``tests/claim_audit.py`` (which reads only the claims of
  the rendering) judges random schedules, boundary schedules and the solver answers as the verifier;
* **render** — every variant renders; its claims correspond one to one to the active constraints, and
  each claim's parameters in ``render --json`` equal the constraint's in ``parse --json``; a solver
  answer written in the v4 names is read back by ``schedc check --variant v4`` with the same verdict;
  the number of answer lines the prompt states is the number the verifier requires; the claim audit's
  wording, contradiction and surface checks pass on the v1 and v4 renderings;
* **grammar** — a solver answer, in the v1 and the v4 names, is accepted by the Lark answer grammar (also
  with ``--lines exact`` where the number of lines is fixed), its structured form validates against the
  JSON Schema and converts back to the same text; the GBNF grammar is built;
* **traceback** — nothing raises anything but ``SchedcError``.

A violated property is a :class:`Finding` naming the side found wrong; :mod:`tests.conformance.known`
lists the findings of defects other branches are fixing.
"""

from __future__ import annotations

import json
import random
import re
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from schedc.api import check as api_check
from schedc.backends import get_backend
from schedc.backends.base import SolverDisagreement, SolveResult
from schedc.core.diagnostics import SchedcError
from schedc.core.solution import Assignment, Solution
from schedc.ir import Family, Instance
from schedc.kinds.context import View
from schedc.lang.load import resolve
from schedc.lang.parser import parse_instance_text
from schedc.lang.printer import print_instance
from schedc.render import VARIANTS, render
from schedc.verify.evaluate import evaluate, make_context
from schedc.verify.verifier import Verifier
from tests import claim_audit as audit
from tests.conformance.strategies import Spec

BACKENDS = ("cpsat", "pyomo")
#: the keys of a ``render --json`` claim that are not the constraint's parameters
CLAIM_KEYS = frozenset({"constraint", "kind", "hard", "weight", "scored", "counts", "unit", "text"})
#: codes of a backend's size limits (not a form it cannot encode): the comparison is skipped
SIZE_LIMITS = frozenset({"E503"})


@dataclass(frozen=True)
class Finding:
    """One violated property: which, the side found wrong (solver, checker, prompt, parser, semantic
    pass) and what was seen."""

    prop: str
    side: str
    message: str

    def __str__(self) -> str:
        return f"[{self.prop}/{self.side}] {self.message}"


@dataclass
class Outcome:
    """What one spec gave: whether it loaded, the solver statuses, the findings and the counts."""

    spec: Spec
    instance: Instance | None = None
    family: Family | None = None
    rejected: list[str] | None = None
    statuses: dict[str, str] = field(default_factory=dict)
    objectives: dict[str, int | None] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)
    seconds: dict[str, float] = field(default_factory=dict)

    def find(self, prop: str, side: str, message: str) -> None:
        self.findings.append(Finding(prop, side, message))


def run(spec: Spec, time_limit: float = 2.0, seed: int = 7) -> Outcome:
    """Check every property of one spec (files written to a temporary folder, removed afterwards)."""
    out = Outcome(spec)
    with tempfile.TemporaryDirectory(prefix="conformance-") as tmp:
        path = spec.write(Path(tmp))
        began = time.perf_counter()
        loaded = _guard(out, "load", lambda: _load(out, path))
        out.seconds["load"] = time.perf_counter() - began
        if not loaded or out.instance is None or out.family is None:
            return out
        instance, family, search = out.instance, out.family, [Path(tmp)]
        began = time.perf_counter()
        results = {b: _guard(out, "solve", lambda b=b: _solve(out, b, instance, family, time_limit)) for b in BACKENDS}
        out.seconds["solve"] = time.perf_counter() - began
        solved = {b: r for b, r in results.items() if isinstance(r, SolveResult)}
        _guard(out, "optimum", lambda: _compare(out, solved))
        if solved and all(r.status == "infeasible" for r in solved.values()) and len(solved) == len(BACKENDS):
            _guard(out, "explain", lambda: _explain(out, instance, family))
        began = time.perf_counter()
        for backend, result in solved.items():
            if result.solution is not None:
                _guard(out, "verify", lambda b=backend, r=result: _verify(out, b, r, instance, family))
        if spec.witness:
            _guard(out, "optimum", lambda: _witness(out, spec, instance, family, solved))
        optimal = [(b, r) for b, r in solved.items() if r.status == "optimal" and r.solution is not None]
        if optimal:
            _guard(out, "optimum", lambda: _one_move(out, *optimal[0], instance, family))
        out.seconds["verify"] = time.perf_counter() - began
        began = time.perf_counter()
        renderings = {v: _guard(out, "render", lambda v=v: _render(out, v, instance, family, search, seed))
                      for v in VARIANTS}
        out.seconds["render"] = time.perf_counter() - began
        began = time.perf_counter()
        answers = [r.solution for r in solved.values() if r.solution is not None]
        if renderings.get("v1") is not None:
            _guard(out, "interpreter", lambda: _interpret(out, renderings["v1"], instance, family, answers, seed))
        if renderings.get("v1") is not None:
            _guard(out, "answer", lambda: _line_count(out, renderings["v1"], instance, family))
        for variant in ("v1", "v4"):
            if renderings.get(variant) is not None and answers:
                _guard(out, "grammar", lambda v=variant: _grammars(out, v, renderings[v].names, instance, family,
                                                                  answers[0]))
        if renderings.get("v4") is not None and answers:
            _guard(out, "answer", lambda: _themed_answer(out, path, renderings["v4"], instance, family, answers[0],
                                                         seed))
        out.seconds["interpret"] = time.perf_counter() - began
    return out


def _guard(out: Outcome, stage: str, step: Callable[[], Any]) -> Any:
    """Run one step of a loaded spec: a ``SchedcError`` is a refusal of what the semantic pass accepted (a
    rendering that refuses a solvable model, say), any other exception a traceback; both are findings."""
    try:
        return step()
    except SchedcError as exc:
        first = exc.diagnostics[0]
        out.find(stage, "prompt" if stage == "render" else "refusal", f"{first.code}: {first.message}")
    except Exception as exc:  # noqa: BLE001 - every exception but SchedcError is what this property forbids
        out.find("traceback", stage, f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=6)}")
    return None


# --------------------------------------------------------------------------------------------- load


def _load(out: Outcome, path: Path) -> bool:
    try:
        instance, family, _ = resolve(path)
    except SchedcError as exc:
        out.rejected = [f"{d.code} {d.message}" for d in exc.diagnostics]
        for d in exc.diagnostics:
            if d.file != str(path) or d.span is None or not d.span.line or not d.span.column:
                out.find("load", "parser", f"{d.code} without file:line:col ({d.file}, {d.span}): {d.message}")
        return False
    out.instance, out.family = instance, family
    printed = print_instance(instance, family)
    again = parse_instance_text(printed, str(path), [path.parent])
    if _unspanned(again) != _unspanned(instance):
        out.find("load", "parser", "the canonical text parses to another IR:\n" + printed)
    out.counts["loaded"] += 1
    return True


def _unspanned(node: Any) -> Any:
    """The builtins of an IR node without source positions."""
    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k != "span"}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value
    return strip(json.loads(msgspec.json.encode(node)))


# --------------------------------------------------------------------------------------------- solve


def _solve(out: Outcome, backend: str, instance: Instance, family: Family, time_limit: float) -> SolveResult | None:
    module = get_backend(backend)
    began = time.perf_counter()
    try:
        result = module.solve(instance, family, module.SolveOptions(time_limit=time_limit, workers=1, seed=0))
    except SchedcError as exc:
        first = exc.diagnostics[0]
        if first.code in SIZE_LIMITS:
            out.statuses[backend] = "too large"
            return None
        out.statuses[backend] = f"refused {first.code}"
        out.find("refusal", "semantic", f"{backend} refuses what the semantic pass accepted: {first.code} "
                 f"{first.message}")
        return None
    except SolverDisagreement as exc:
        out.statuses[backend] = "disagreement"
        out.find("verify", "solver", f"{backend}: {exc}")
        return None
    finally:
        out.seconds[backend] = time.perf_counter() - began
    out.statuses[backend] = result.status
    out.objectives[backend] = result.objective
    out.counts[f"{backend}:{result.status}"] += 1
    if result.status == "invalid":  # CP-SAT's MODEL_INVALID: the backend built a model its solver rejects
        out.find("optimum", "solver", f"{backend} built a model its solver calls invalid")
    return result


def _compare(out: Outcome, solved: dict[str, SolveResult]) -> None:
    """Same optimum, or both infeasible; no proven bound above the other's verified answer."""
    if len(solved) < 2:
        return
    a, b = (solved[k] for k in BACKENDS)
    statuses = {a.status, b.status}
    if statuses == {"optimal"}:
        out.counts["optima compared"] += 1
        if a.objective != b.objective:
            wrong = "cpsat" if (a.objective or 0) > (b.objective or 0) else "pyomo"
            out.find("optimum", "solver", f"optima differ: cpsat {a.objective}, pyomo {b.objective} "
                     f"(the larger, {wrong}'s, is not optimal: the other answer verifies)")
        return
    if statuses == {"infeasible"}:
        out.counts["infeasible agreed"] += 1
        return
    for claimed, other, name in ((a, b, "cpsat"), (b, a, "pyomo")):
        if claimed.status == "infeasible" and other.solution is not None:
            out.find("optimum", "solver", f"{name} proves the spec infeasible, but the other backend's answer "
                     f"verifies (objective {other.objective})")
        if claimed.status == "optimal" and other.objective is not None and claimed.objective is not None \
                and other.objective < claimed.objective:
            out.find("optimum", "solver", f"{name} proves {claimed.objective} optimal, but the other backend's "
                     f"answer verifies with {other.objective}")


def _explain(out: Outcome, instance: Instance, family: Family) -> None:
    from schedc.backends.cpsat.explain import explain_infeasibility

    conflict = explain_infeasibility(instance, family, 60.0)  # done in well under a second; the budget guards load
    out.counts["infeasible explained"] += 1
    if conflict is not None and not conflict.constraints and conflict.always_on:
        out.counts["infeasible by what cannot be switched off"] += 1  # `horizon 0`: no activity can end by it
        return
    if conflict is None or not conflict.constraints:
        out.find("explain", "solver", "both backends prove the spec infeasible, the explanation finds no conflict")
        return
    unplaced = [c.id for c in conflict.constraints if c.span is None]
    if not conflict.verified or unplaced:
        out.find("explain", "solver", f"the conflict {[c.id for c in conflict.constraints]} is "
                 f"{'not shown infeasible on its own' if not conflict.verified else f'unplaced: {unplaced}'}")


def _witness(out: Outcome, spec: Spec, instance: Instance, family: Family, solved: dict[str, SolveResult]) -> None:
    """The generator's witness schedule, when the verifier finds it feasible, refutes an infeasibility proof
    and bounds every proven optimum."""
    if instance.activities:
        solution = Solution(starts={n: s for n, s, _ in spec.witness}, modes={n: k for n, _, k in spec.witness})
    else:
        solution = Solution(assignments=tuple(Assignment(*cell) for cell in spec.witness))
    evaluation = evaluate(make_context(instance, family), solution)
    if not evaluation.feasible or evaluation.objective is None:
        return
    out.counts["feasible witnesses"] += 1
    for backend, result in solved.items():
        if result.status == "infeasible":
            out.find("optimum", "solver", f"{backend} proves the spec infeasible, but the generator's witness is "
                     f"feasible (objective {evaluation.objective}): {_shown(solution)}")
        elif result.status == "optimal" and result.objective is not None and evaluation.objective < result.objective:
            out.find("optimum", "solver", f"{backend} proves {result.objective} optimal, but the generator's witness "
                     f"is feasible with {evaluation.objective}: {_shown(solution)}")


def _one_move(out: Outcome, backend: str, result: SolveResult, instance: Instance, family: Family) -> None:
    """No schedule one move away from a proven optimum is feasible and better (a third opinion on the
    optimum that shares nothing with the solvers' models, their horizons and bounds included)."""
    solution = result.solution
    assert solution is not None and result.objective is not None
    ctx = make_context(instance, family)
    out.counts["optima moved"] += 1
    for candidate in _moves(instance, family, solution):
        evaluation = evaluate(ctx, candidate)
        if evaluation.feasible and evaluation.objective is not None and evaluation.objective < result.objective:
            out.find("optimum", "solver", f"{backend} proves {result.objective} optimal, but a schedule one move away "
                     f"is feasible with {evaluation.objective}: {_shown(candidate)}")
            return


def _moves(instance: Instance, family: Family, solution: Solution) -> Any:
    """The schedules one move away: every activity at every start of ``[0, T]`` in every mode, or left out
    when optional (T: past every time the instance states); every agent-slot with every value, or none."""
    if instance.activities:
        numbers = [v for v in _integers(json.loads(msgspec.json.encode(instance.constraints)))]
        limit = min(200, max([0, *numbers, *solution.starts.values()])
                    + sum(max(m.duration for m in a.modes) for a in instance.activities) + 1)
        optional = make_context(instance, family).optional
        for a in instance.activities:
            others = {n: s for n, s in solution.starts.items() if n != a.name}
            modes = {n: k for n, k in solution.modes.items() if n != a.name}
            if a.name in optional and a.name in solution.starts:
                yield Solution(starts=others, modes=modes)
            for k in range(1, len(a.modes) + 1):
                for t in range(limit + 1):
                    yield Solution(starts={**others, a.name: t}, modes={**modes, a.name: k})
        return
    cal = instance.calendar
    decision = family.decision
    if cal is None or decision is None:
        return
    agents = [e.name for e in instance.entities if e.cls == decision.agent]
    values = [e.name for e in instance.entities if e.cls == decision.value]
    held = list(solution.assignments)
    for agent in agents:
        for day in range(cal.days):
            for period in range(cal.periods_per_day):
                rest = tuple(x for x in held if (x.agent, x.day, x.period) != (agent, day, period))
                yield Solution(assignments=rest)
                for value in values:
                    yield Solution(assignments=(*rest, Assignment(agent, day, period, value)))


def _integers(value: Any) -> list[int]:
    """Every integer inside a JSON value."""
    if isinstance(value, bool):
        return []
    if isinstance(value, int):
        return [value]
    if isinstance(value, dict):
        return [i for v in value.values() for i in _integers(v)]
    if isinstance(value, list):
        return [i for v in value for i in _integers(v)]
    return []


def _shown(solution: Solution) -> str:
    if solution.starts:
        return ", ".join(f"{n}@{s}/m{solution.modes.get(n, 1)}" for n, s in sorted(solution.starts.items()))
    return ", ".join(f"{a.agent}:{a.day}.{a.period}={a.value}" for a in solution.assignments)


def _verify(out: Outcome, backend: str, result: SolveResult, instance: Instance, family: Family) -> None:
    """The answer text reads back complete and feasible with the solver's objective and components;
    CP-SAT's fixed model scores it term by term as the verifier; it ends by the horizon."""
    solution = result.solution
    assert solution is not None
    verifier = Verifier(instance, family)
    report = verifier.check(verifier.write(solution))
    out.counts["answers verified"] += 1
    if not report.extracted or report.issues or not report.feasible:
        problems = [i.message for i in report.issues] + [v.message for v in report.violations]
        out.find("verify", "checker", f"{backend}'s answer does not read back feasible: "
                 f"{report.extraction_error or ''} {problems[:3]}")
    elif report.objective != result.objective or report.components != result.components:
        out.find("verify", "checker", f"{backend}'s answer reads back with objective {report.objective} "
                 f"{report.components}, the solver reported {result.objective} {result.components}")
    _terms(out, backend, solution, instance, family)
    if instance.horizon is not None and instance.activities:
        view = View(make_context(instance, family), solution)
        late = {a: e for a, e in view.end.items() if e > instance.horizon}
        if late:
            out.find("horizon", "solver+checker", f"{backend}'s answer ends after the horizon {instance.horizon} "
                     f"({late}) and the verifier accepts it")


def _terms(out: Outcome, backend: str, solution: Solution, instance: Instance, family: Family) -> None:
    from schedc.backends.cpsat.solve import fixed_verdict

    evaluation = evaluate(make_context(instance, family), solution)
    # every decision is fixed: solved at once; the limit only guards a loaded machine against a false verdict
    feasible, objective, components = fixed_verdict(instance, family, solution, time_limit=60.0)
    out.counts["term comparisons"] += 1
    if not feasible:
        out.find("terms", "solver", f"CP-SAT's model rejects {backend}'s verified answer (fixed decisions)")
        return
    differ = {k: (v, evaluation.components.get(k)) for k, v in components.items()
              if evaluation.components.get(k) != v}
    if differ or objective != evaluation.objective:
        out.find("terms", "solver", f"CP-SAT's fixed model scores {backend}'s answer {objective} {differ} "
                 f"(model, verifier); the verifier {evaluation.objective}")


# -------------------------------------------------------------------------------------------- render


def _render(out: Outcome, variant: str, instance: Instance, family: Family, search: list[Path], seed: int) -> Any:
    rendering = render(instance, family, variant, seed, search)
    out.counts["renderings"] += 1
    for problem in audit.bijection(rendering, instance):
        out.find("claims", "prompt", f"{variant}: {problem}")
    if variant in ("v1", "v4"):  # the claim audit's reading of the sentences (modality, bounds, counted set)
        for problem in (audit.wording(rendering, family) + audit.contradictions(rendering, instance, family)
                        + audit.surface(rendering)):
            out.find("wording", "prompt", f"{variant}: {problem}")
    data = json.loads(json.dumps(rendering.to_json(), ensure_ascii=False))
    declared = {c["id"]: c for c in json.loads(msgspec.json.encode(instance))["constraints"]}  # parse --json
    for claim in data["claims"]:
        params = {k: v for k, v in claim.items() if k not in CLAIM_KEYS}
        own = {k: v for k, v in declared.get(claim["constraint"], {}).items()
               if k not in audit.COMMON and v is not None}
        out.counts["claims compared"] += 1
        if params != own:
            out.find("claims", "prompt", f"{variant}: render --json claim {claim['constraint']} has {params}, "
                     f"parse --json {own}")
    return rendering


def _interpret(out: Outcome, rendering: Any, instance: Instance, family: Family, answers: list[Solution],
               seed: int) -> None:
    solutions = audit.probes(instance, family, random.Random(seed)) + answers
    made, problems = audit.verdicts_disagree(rendering, instance, family, solutions)
    out.counts["probes"] += len(solutions)
    out.counts["judgements"] += made
    for problem in problems:
        out.find("interpreter", "checker|prompt", problem)


def _themed_answer(out: Outcome, path: Path, rendering: Any, instance: Instance, family: Family,
                   solution: Solution, seed: int) -> None:
    """An answer in the v4 names, checked as ``schedc check SPEC ANSWER --variant v4 --seed S`` would."""
    expected = evaluate(make_context(instance, family), solution)
    text = Verifier(instance, family, rendering.names).write(solution)
    report = api_check(path, text, variant="v4", seed=seed)
    out.counts["themed answers"] += 1
    if not report.extracted or report.issues or report.feasible != expected.feasible \
            or report.objective != expected.objective:
        issues = [i.message for i in report.issues][:3]
        out.find("answer", "prompt", f"an answer in the v4 names reads back as feasible={report.feasible} "
                 f"objective={report.objective} (expected {expected.feasible} {expected.objective}); {issues}")


_LINES = re.compile(r"\((\d+) lines in all\)|\((\d+) to (\d+) lines\)")


def _line_count(out: Outcome, rendering: Any, instance: Instance, family: Family) -> None:
    """The number of lines the answer format states is the number the verifier (and the grammar of
    ``--lines exact``) requires."""
    from schedc.grammars.spec import answer_spec

    stated = _LINES.search(rendering.response_format)
    if stated is None:
        return
    low, high = (int(stated.group(1)),) * 2 if stated.group(1) else (int(stated.group(2)), int(stated.group(3)))
    spec = answer_spec(instance, family, rendering.names)
    out.counts["line counts compared"] += 1
    if (spec.min_lines, spec.max_lines) != (low, high):
        out.find("answer", "prompt", f"the answer format states {stated.group(0)}, the verifier requires "
                 f"{spec.min_lines} to {spec.max_lines} lines")


def _grammars(out: Outcome, variant: str, names: dict[str, str], instance: Instance, family: Family,
              solution: Solution) -> None:
    """``schedc grammar`` in every format for one rendering's names, held against a solver answer."""
    import jsonschema
    from lark import Lark
    from lark.exceptions import LarkError

    from schedc.grammars import answer_grammar, answer_spec, structured_to_text
    from schedc.verify.answers import LIST_FIELDS, AnswerFormat, extract, split_list

    text = Verifier(instance, family, names).write(solution)
    spec = answer_spec(instance, family, names)
    modes = ["any"] + (["exact"] if spec.max_lines is not None and spec.max_lines == spec.min_lines else [])
    out.counts["grammar checks"] += 1
    for lines in modes:
        try:
            Lark(answer_grammar(instance, family, names, "lark", lines), parser="lalr").parse(text)
        except LarkError as exc:
            out.find("grammar", "grammar", f"{variant}: the Lark grammar (lines {lines}) rejects a solver answer: "
                     f"{str(exc).splitlines()[0]}\n{text}")
    answer_grammar(instance, family, names, "gbnf")
    schema = json.loads(answer_grammar(instance, family, names, "json-schema"))
    ints = ("step", "start", "mode", "day", "period")
    items = [{k: int(v) if k in ints else split_list(v) if k in LIST_FIELDS else v for k, v in line.fields.items()}
             for line in extract(text, AnswerFormat(family)).lines]
    errors = [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors({"assignments": items})]
    if errors:
        out.find("grammar", "grammar", f"{variant}: a solver answer's structured form fails the JSON Schema: "
                 f"{errors[:2]}")
    elif structured_to_text(instance, family, names, json.dumps({"assignments": items})) != text:
        out.find("grammar", "grammar", f"{variant}: a solver answer's structured form converts to another text")
