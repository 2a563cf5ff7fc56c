"""``schedc perturb SPEC -o DIR --mode boundary|sat --count N --seed S``: variants and their manifest.

Every variant is written as ``DIR/<base>_<mode>_<k>[_feasible|_infeasible].sched`` with ``meta``
recording base, derivation, seed and change list, and listed in ``DIR/manifest.json`` with its
reference objective and proof status (``verified``: CP-SAT's schedule re-checked by the verifier;
``infeasible``: CP-SAT's proof, with the conflicting hard constraints when the explanation finds them).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from schedc.core.diagnostics import SchedcError
from schedc.ir import Family, Instance
from schedc.variants.boundary import Boundary, boundary_variants
from schedc.variants.common import derived, write_instance
from schedc.variants.sat import sat_records

MODES = ("boundary", "sat")


def _boundary_records(instance: Instance, family: Family, found: list[Boundary], seed: int, outdir: Path,
                      search: Sequence[Path], explain: float) -> list[dict[str, Any]]:
    """Write both variants of every boundary; their manifest records."""
    from schedc.backends.cpsat.explain import explain_infeasibility

    records = []
    for k, b in enumerate(found, start=1):
        for side, value in (("feasible", b.feasible), ("infeasible", b.infeasible)):
            changes = b.scalar.changes(value)
            name = f"{instance.name}_boundary_{k}_{side}"
            variant = derived(b.scalar.apply(instance, value), name, "boundary", seed, changes)
            path = outdir / f"{name}.sched"
            write_instance(variant, family, path, search)
            record: dict[str, Any] = {"file": path.name, "name": name, "mode": "boundary", "kind": b.scalar.kind,
                                      "changes": changes, "value": value, "solves": b.solves}
            if side == "feasible":
                record.update(status=b.feasible_probe.status, objective=b.feasible_probe.objective, proof="verified")
            else:
                conflict = explain_infeasibility(variant, family, explain) if explain > 0 else None
                # the status is CP-SAT's proof (INFEASIBLE, not a timeout); the conflict explains it
                record.update(status="infeasible", objective=None, proof="infeasible (CP-SAT)",
                              conflict=[c.id for c in conflict.constraints] if conflict else None,
                              conflict_minimal=conflict.minimal if conflict else None,
                              conflict_verified=conflict.verified if conflict else None)
            records.append(record)
    return records


def perturb(instance: Instance, family: Family, outdir: Path, mode: str = "boundary", count: int = 3, seed: int = 0,
            time_limit: float = 2.0, search: Sequence[Path] = (), explain: float = 2.0,
            strength: float = 0.2) -> dict[str, Any]:
    """Make the variants of ``instance`` in ``outdir``; the manifest (also written as ``manifest.json``).

    ``strength`` (sat): a numeric change moves a value by at most that fraction of it (at least 1).
    """
    if mode not in MODES:
        raise SchedcError.at("E803", f"unknown perturbation mode {mode!r}", hint="modes: " + ", ".join(MODES))
    if not 0 < strength <= 10:
        raise SchedcError.at("E803", f"--strength must be in (0, 10], found {strength}")
    if count < 1:
        raise SchedcError.at("E803", f"--count must be at least 1, found {count}")
    if mode == "boundary":
        found = boundary_variants(instance, family, count, seed, time_limit)
        records = _boundary_records(instance, family, found, seed, outdir, search, explain)
    else:
        records = sat_records(instance, family, outdir, count, seed, time_limit, search, strength)
    manifest = {"base": instance.meta.base or instance.name, "family": instance.family, "mode": mode, "seed": seed,
                "count": count, **({"strength": strength} if mode == "sat" else {}), "variants": records}
    from schedc.importers.common import write_atomic

    write_atomic(outdir / "manifest.json", json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
    return manifest


def perturb_file(spec: str | os.PathLike[str], outdir: Path, mode: str = "boundary", count: int = 3, seed: int = 0,
                 time_limit: float = 2.0, search: Sequence[str | os.PathLike[str]] = (),
                 strength: float = 0.2) -> dict[str, Any]:
    """``schedc perturb``: the variants of the instance in ``spec``, written to ``outdir``."""
    from schedc.lang.load import resolve

    instance, family, folders = resolve(Path(spec), search)
    return perturb(instance, family, outdir, mode, count, seed, time_limit, folders, strength=strength)
