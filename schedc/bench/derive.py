"""``schedc bench build --perturb sat:N`` / ``--tighten F``: a benchmark of variants of a selection.

Each selected instance (the *base*) is imported as usual, then replaced by its variants — ``N``
``sat`` variants (:mod:`schedc.variants.sat`: changes the base's CP-SAT schedule keeps feasible,
each re-solved and verified) or one tightened copy (:mod:`schedc.variants.tighten`: a hard
``objective_bound`` at ⌊F × z*⌋). The variants are rendered into the same records and tables as a
plain build; each record names its ``base``, its ``derivation`` and its change list, and
``OUT/variants/<family>/<base>.json`` lists the base's variants with their reference objectives
and proofs (the ``schedc perturb`` manifest records). A variant keeps its base's difficulty tier.

Every solve uses one CP-SAT worker and the derivation's seed, so a build whose solves finish
within the time limit is reproducible byte for byte.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import msgspec

from schedc.bench.dataset import (
    import_item,
    load_records,
    make_record,
    records_path,
    spec_path,
    write_if_changed,
    write_records,
)
from schedc.core.diagnostics import SchedcError

MODES = ("sat", "tighten")


@dataclass(frozen=True)
class Derivation:
    """What replaces each base: ``count`` sat variants, or one copy tightened by ``factor``."""

    mode: str
    count: int = 1
    factor: str = "1.15"
    seed: int = 0
    time_limit: float = 10.0

    def as_dict(self) -> dict[str, Any]:
        """The manifest entry (only the fields that apply to the mode)."""
        fields = asdict(self)
        fields.pop("factor" if self.mode == "sat" else "count")
        return fields


def parse_derivation(perturb: str | None, tighten: str | None, seed: int = 0,
                     time_limit: float = 10.0) -> Derivation | None:
    """The options ``--perturb sat:N`` and ``--tighten F`` as a Derivation (None: a plain build).

    A SchedcError (B107) for both options at once, a mode other than ``sat``, N below 1, or a bad factor.
    """
    if perturb is None and tighten is None:
        return None
    if perturb is not None and tighten is not None:
        raise SchedcError.at("B107", "give --perturb or --tighten, not both",
                             hint="build the two variant sets into two folders")
    if time_limit <= 0:
        raise SchedcError.at("B107", f"--variant-time-limit must be positive, found {time_limit:g}")
    if tighten is not None:
        from schedc.variants.tighten import parse_factor

        try:
            parse_factor(tighten)
        except SchedcError as exc:
            raise SchedcError.at("B107", f"--tighten: {exc.diagnostics[0].message}", hint="e.g. --tighten 1.15") \
                from None
        return Derivation(mode="tighten", factor=tighten, seed=seed, time_limit=time_limit)
    match = re.fullmatch(r"sat:(\d+)", (perturb or "").strip())
    if match is None or int(match.group(1)) < 1:
        raise SchedcError.at("B107", f"--perturb must be sat:N with N ≥ 1, found {perturb!r}",
                             hint="e.g. --perturb sat:20 (boundary variants are made one instance at a time "
                                  "with schedc perturb)")
    return Derivation(mode="sat", count=int(match.group(1)), seed=seed, time_limit=time_limit)


def index_path(out: Path, family: str, base: str) -> Path:
    """The list of one base's variants (written once all of them are rendered)."""
    return out / "variants" / family / f"{base}.json"


def read_index(out: Path, family: str, base: str) -> list[dict[str, Any]] | None:
    """The variant records of ``base`` (None when the base has not been derived yet, or the file is damaged)."""
    try:
        return json.loads(index_path(out, family, base).read_text(encoding="utf-8"))["variants"]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def index_text(base: str, derivation: dict[str, Any], records: list[dict[str, Any]]) -> str:
    """The index file's text: the base, the derivation settings and one record per variant."""
    return json.dumps({"base": base, "derivation": derivation, "variants": records}, indent=1,
                      ensure_ascii=False) + "\n"


def derive(instance: Any, family: Any, derivation: Derivation) -> list[tuple[Any, dict[str, Any]]]:
    """The variants of one base instance, each with its record (name, mode, changes, status, objective, proof)."""
    if derivation.mode == "sat":
        from schedc.variants.sat import sat_instances

        made = sat_instances(instance, family, derivation.count, derivation.seed, derivation.time_limit, workers=1)
        return [(variant, record) for variant, record, _certificate in made]
    from schedc.variants.tighten import tighten

    result = tighten(instance, family, derivation.factor, derivation.time_limit, derivation.seed)
    bound = result.instance.constraints[-1]
    change = f"added objective_bound {bound.id} with max={result.bound}"
    variant = msgspec.structs.replace(result.instance, meta=msgspec.structs.replace(result.instance.meta,
                                                                                   changes=change))
    return [(variant, {"name": variant.name, "mode": "tighten", "changes": [change], "bound": result.bound,
                       "reference": result.reference.value, "reference_source": result.reference.source,
                       "factor": result.factor})]


def record_fields(instance: Any) -> dict[str, Any]:
    """The fields a variant adds to its dataset records."""
    meta = instance.meta
    return {"base": meta.base, "derivation": meta.derivation, "changes": meta.changes or ""}


def _finished(out: Path, family: str, name: str, wanted: list[tuple[str, int]], mode: str) -> bool:
    have = {k for k, r in load_records(records_path(out, family, name)).items()
            if r.get("answer_mode", "text") == mode}
    return spec_path(out, family, name).is_file() and all(key in have for key in wanted)


def _retier(out: Path, item: Any, names: list[str]) -> bool:
    """Move the variants' records to their base's tier (references from ``bench validate``); True if any moved."""
    moved = False
    for name in names:
        target = records_path(out, item.family, name)
        have = load_records(target)
        if any(r.get("difficulty") != item.difficulty for r in have.values()):
            write_records(target, {k: {**r, "difficulty": item.difficulty} for k, r in have.items()})
            moved = True
    return moved


def build_derived_item(task: dict[str, Any]) -> dict[str, Any]:
    """Worker: derive the variants of one base, write their ``.sched`` files, render the missing records."""
    from schedc.lang.family import load_family
    from schedc.lang.parser import parse_instance_text
    from schedc.lang.printer import print_instance
    from schedc.render import render

    item, out = task["item"], Path(task["out"])
    derivation = Derivation(**task["derivation"])
    wanted = [(v, s) for v in task["variants"] for s in task["seeds"]]
    mode = task.get("answer_mode", "text")
    index = read_index(out, item.family, item.name)
    if index is not None and all(_finished(out, item.family, r["name"], wanted, mode) for r in index):
        moved = _retier(out, item, [r["name"] for r in index])
        return {"name": item.name, "status": "built" if moved else "skipped"}
    try:
        instance = import_item(item)
        family = load_family(instance.family)
        records = []
        for variant, record in derive(instance, family, derivation):
            spec = spec_path(out, item.family, variant.name)
            text = print_instance(variant, family)
            parse_instance_text(text, file=str(spec))  # a variant is an ordinary, valid instance
            write_if_changed(spec, text)
            relative = spec.relative_to(out).as_posix()
            digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
            target = records_path(out, item.family, variant.name)
            have = {k: r for k, r in load_records(target).items()
                    if r.get("answer_mode", "text") == mode and r.get("spec_sha256") == digest
                    and r.get("difficulty") == item.difficulty}
            for key in wanted:
                if key not in have:
                    rendering = render(variant, family, key[0], key[1])
                    rendered = make_record(item, rendering, variant, relative, mode, digest)
                    have[key] = {**rendered, **record_fields(variant)}
            write_records(target, have)
            records.append({"spec": relative, **record})
    except SchedcError as exc:
        return {"name": item.name, "status": "failed", "error": str(exc)}
    write_if_changed(index_path(out, item.family, item.name), index_text(item.name, derivation.as_dict(), records))
    return {"name": item.name, "status": "built"}


def derived_names(out: Path, family: str, base: str) -> list[str]:
    """The names of the variants of ``base`` in a finished derived build (none before it is derived)."""
    return [r["name"] for r in read_index(out, family, base) or []]
