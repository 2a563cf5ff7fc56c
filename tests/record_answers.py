"""Known answers to a rendered dataset's records, shared by the framework-bridge tests (Inspect AI,
lm-evaluation-harness): what each answer is, and so what ``schedc check`` must say of it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from schedc.backends.search.heuristics import serial_schedule
from schedc.core.solution import Solution
from schedc.lang.load import load_instance
from schedc.verify.verifier import Verifier


def verifier(out: Path, record: dict[str, Any]) -> Verifier:
    return Verifier(load_instance(out / record["spec"]), None, {p["ir"]: p["shown"] for p in record["names"]})


def answers(out: Path, records: list[dict[str, Any]]) -> dict[str, str]:
    """prompt → answer text: feasible for ft06, all-at-zero for rcpsp_small v1, prose for rcpsp_small v4."""
    chosen = {}
    for r in records:
        instance = load_instance(out / r["spec"])
        if r["instance"] == "ft06":
            solution = serial_schedule(instance)
        elif r["variant"] == "v1":
            solution = Solution(starts={a.name: 0 for a in instance.activities},
                                modes={a.name: 1 for a in instance.activities})
        else:
            chosen[r["prompt"]] = "I would rather not schedule anything today."
            continue
        chosen[r["prompt"]] = verifier(out, r).write(solution)
    return chosen
