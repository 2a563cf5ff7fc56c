"""The snapshot document of one spec: what a rendering of it says, gathered in one canonical JSON object.

A document holds, for one instance and a set of options (variants, seeds, grammar formats, solve):

* ``claims``: constraint id → its claim as ``schedc render --json`` lists it (modality, what it counts,
  its parameters in IR names), without the sentences (those are in the renderings) — variant-free;
* ``data``: the instance's own facts (sizes, durations, resource uses and capacities, calendar, entity
  attributes, objective; :mod:`schedc.render.facts`) that no claim holds, keyed ``"duration J1.2"``;
* ``renderings``: ``"<variant>/<seed>"`` → the theme and the lines of the system prompt and of the user
  message; a rendering identical to an earlier one (in key order) is stored as ``{"same_as": key}``;
* ``grammars``: format → ``"<variant>/<seed>"`` → the lines of ``schedc grammar --format F --variant V
  --variant-seed S`` (again ``same_as`` for repeats);
* ``solve`` (when asked): the CP-SAT reference outcome, status and objective;
* ``options``: what was asked, so that ``check`` and ``update`` repeat it without being told again.

Every value is plain JSON (strings, integers, booleans, null, lists, objects), so that a document read
back from its file equals the document built again from the same spec in any process.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec

from schedc.core.diagnostics import SchedcError
from schedc.ir import Family, Instance
from schedc.lang.load import Source, resolve

FORMAT_VERSION = 1
"""The version of the document layout (``schedc_snapshot``); a file of another version is refused."""

DEFAULT_VARIANTS = ("v1", "v2", "v3a", "v3b", "v4")
DEFAULT_SEEDS = (42,)
DEFAULT_TIME_LIMIT = 10.0

#: fact categories that come from a constraint's facts yet describe the instance's resources (a claim
#: of ``cumulative_renewable`` says ``resources: all``, not the capacities)
RESOURCE_FACTS = frozenset({"capacity", "budget"})
#: outcomes a solver run proves; any other status depends on the time it was given
PROVEN = frozenset({"optimal", "infeasible"})


class Options(msgspec.Struct, frozen=True, kw_only=True):
    """What a snapshot holds: renderings of ``variants`` × ``seeds``, the answer grammars in
    ``formats`` (``schedc grammar`` formats) for each of them, and, with ``with_solve``, CP-SAT's
    reference outcome within ``time_limit`` seconds (one worker, seed 0)."""

    variants: tuple[str, ...] = DEFAULT_VARIANTS
    seeds: tuple[int, ...] = DEFAULT_SEEDS
    formats: tuple[str, ...] = ()
    with_solve: bool = False
    time_limit: float = DEFAULT_TIME_LIMIT

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"variants": list(self.variants), "seeds": list(self.seeds),
                               "formats": list(self.formats), "with_solve": self.with_solve}
        if self.with_solve:
            out["time_limit"] = self.time_limit
        return out


def options(variants: Sequence[str] | None = None, seeds: Sequence[int] | None = None,
            formats: Sequence[str] | None = None, with_solve: bool = False,
            time_limit: float = DEFAULT_TIME_LIMIT) -> Options:
    """Checked options: known variants (case-insensitive) and formats, each once, in the order given;
    seeds as integers. A SchedcError (E954) names the first bad value."""
    from schedc.grammars import FORMATS
    from schedc.render.model import VARIANTS

    chosen_variants = _unique("variant", [v.strip().lower() for v in variants or DEFAULT_VARIANTS], VARIANTS)
    chosen_formats = _unique("grammar format", [f.strip().lower() for f in formats or ()], FORMATS)
    chosen_seeds = list(dict.fromkeys(seeds if seeds is not None else DEFAULT_SEEDS))
    if not chosen_seeds:
        raise SchedcError.at("E954", "no seed given", hint="for example --seeds 42,43,44")
    if any(isinstance(s, bool) or not isinstance(s, int) for s in chosen_seeds):
        raise SchedcError.at("E954", f"seeds are integers, got {chosen_seeds!r}")
    if not time_limit > 0:
        raise SchedcError.at("E954", f"the time limit must be positive, got {time_limit}")
    return Options(variants=tuple(chosen_variants), seeds=tuple(chosen_seeds), formats=tuple(chosen_formats),
                   with_solve=with_solve, time_limit=float(time_limit))


def _unique(what: str, given: list[str], known: Sequence[str]) -> list[str]:
    for value in given:
        if value not in known:
            raise SchedcError.at("E954", f"unknown {what} {value!r}", hint=f"{what}s: " + ", ".join(known))
    return list(dict.fromkeys(given))


def key(variant: str, seed: int) -> str:
    """The key of one rendering: ``v3a/42``."""
    return f"{variant}/{seed}"


def observe(spec: Source, chosen: Options | None = None, search: Sequence[str | Path] = ()) -> dict[str, Any]:
    """The snapshot document of the instance in ``spec`` under ``chosen`` options (defaults: all five
    variants, seed 42, no grammar, no solve). Bad input raises SchedcError, as ``schedc render`` does."""
    chosen = chosen or Options()
    instance, family, folders = resolve(spec, search)
    document: dict[str, Any] = {
        "schedc_snapshot": FORMAT_VERSION, "instance": instance.name, "family": instance.family,
        "options": chosen.to_json(), "claims": claims(instance), "data": data(instance),
        "renderings": renderings(instance, family, folders, chosen),
        "grammars": {fmt: grammars(instance, folders, chosen, fmt) for fmt in chosen.formats},
    }
    if chosen.with_solve:
        document["solve"] = solve(instance, family, chosen.time_limit)
    return plain(document)


def plain(value: Any) -> Any:
    """``value`` as JSON reads it back (tuples become lists), so that a built document equals a stored one."""
    return msgspec.json.decode(msgspec.json.encode(value))


def claims(instance: Instance) -> dict[str, dict[str, Any]]:
    """Constraint id → the claim of each active constraint, as ``render --json`` lists it without its
    sentences and its id (the key), in plain JSON values."""
    from schedc.render.claims import claims as claims_of

    out: dict[str, dict[str, Any]] = {}
    for _, claim in claims_of(instance):
        entry = plain(claim.to_json([]))
        del entry["text"], entry["constraint"]
        out[claim.constraint] = entry
    return out


def data(instance: Instance) -> dict[str, list[int | str]]:
    """The facts of the instance that no claim holds (plus resource capacities), ``"category id…"`` →
    the values a rendering must print for it."""
    from schedc.render.facts import facts, facts_by_constraint

    of_constraints = set().union(*facts_by_constraint(instance).values())
    out: dict[str, list[int | str]] = {}
    for fact, values in facts(instance).items():
        if fact[0] == "rule" or (fact in of_constraints and fact[0] not in RESOURCE_FACTS):
            continue
        name = fact_key(fact)
        if name in out:  # two facts alike once written: a name with blanks would be needed; keep both apart
            raise SchedcError.at("E957", f"two facts of {instance.name} read alike: {name!r}")
        out[name] = list(values)
    return out


def fact_key(fact: tuple[str | int, ...]) -> str:
    """A fact id as one string: its parts separated by blanks (a part holding a blank is quoted)."""
    return " ".join(str(p) if isinstance(p, int) or (p and " " not in p and '"' not in p) else _quoted(p)
                    for p in fact)


def _quoted(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def lines(text: str) -> list[str]:
    """A text as the list of its lines (``"\\n".join`` gives it back, a final newline included)."""
    return text.split("\n")


def renderings(instance: Instance, family: Family, folders: Sequence[Path], chosen: Options) -> dict[str, Any]:
    """``"<variant>/<seed>"`` → theme, system prompt and user message lines (repeats as ``same_as``)."""
    from schedc.render import render

    found: dict[str, dict[str, Any]] = {}
    for variant in chosen.variants:
        for seed in chosen.seeds:
            rendering = render(instance, family, variant, seed, folders)
            found[key(variant, seed)] = {"theme": rendering.theme, "system": lines(rendering.system),
                                         "prompt": lines(rendering.user_prompt())}
    return deduplicated(found)


def grammars(instance: Instance, folders: Sequence[Path], chosen: Options, fmt: str) -> dict[str, Any]:
    """``"<variant>/<seed>"`` → the lines of the answer grammar in ``fmt`` (``schedc grammar``'s bytes)."""
    from schedc.pipeline import grammar_file

    found = {key(v, s): {"lines": lines(grammar_file(instance, fmt, v, s, search=folders))}
             for v in chosen.variants for s in chosen.seeds}
    return deduplicated(found)


def deduplicated(entries: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each entry equal to an earlier one (in sorted key order, the order of the file) as ``{"same_as": key}``."""
    out: dict[str, dict[str, Any]] = {}
    first: dict[str, str] = {}
    for name in sorted(entries):
        fingerprint = json.dumps(entries[name], sort_keys=True, ensure_ascii=False)
        if fingerprint in first:
            out[name] = {"same_as": first[fingerprint]}
        else:
            first[fingerprint] = name
            out[name] = entries[name]
    return out


def expanded(entries: dict[str, Any]) -> dict[str, Any]:
    """``same_as`` references replaced by the entries they name (a reference to a missing key stays)."""
    return {name: entries.get(entry["same_as"], entry) if "same_as" in entry else entry
            for name, entry in entries.items()}


def solve(instance: Instance, family: Family, time_limit: float) -> dict[str, Any]:
    """CP-SAT's outcome within ``time_limit`` (one worker, seed 0): status and objective, and whether the
    outcome is proven (optimal or infeasible), hence the same on every run."""
    from schedc.backends import get_backend

    module = get_backend("cpsat")
    result = module.solve(instance, family, module.SolveOptions(time_limit=time_limit, workers=1, seed=0), None)
    return {"status": result.status, "objective": result.objective, "proven": result.status in PROVEN}
