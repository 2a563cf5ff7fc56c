"""The files of a built benchmark: paths, dataset records, the dataset itself and the reference table.

The lowest module of :mod:`schedc.bench`: ``build`` and ``derive`` write what it describes,
``validate`` and ``evaluate`` read it, and none of them imports another to reach these files.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from schedc.bench.selection import Item
from schedc.core.diagnostics import SchedcError
from schedc.importers.common import BksRow, read_bks, write_atomic

#: The variants in their canonical order (records of one instance are written in it).
DEFAULT_VARIANTS = ("v1", "v2", "v3a", "v3b", "v4")

FORMAT_OF = {"jsplib": "jsplib", "psplib-sm": "psplib-sm", "psplib-mm": "psplib-mm", "itc2007": "itc2007",
             "inrc2010": "inrc2010", "nsplib": "nsplib"}


def write_if_changed(path: Path, text: str | bytes) -> bool:
    """Atomically write ``text`` (or bytes) unless ``path`` already holds exactly these bytes; True if written."""
    data = text if isinstance(text, bytes) else text.encode("utf-8")
    try:
        if path.read_bytes() == data:
            return False
    except OSError:
        pass
    write_atomic(path, text)
    return True


def record_id(family: str, instance: str, variant: str, seed: int) -> str:
    """The dataset id of one rendering."""
    return f"{family}/{instance}/{variant}/s{seed}"


def spec_path(out: Path, family: str, instance: str) -> Path:
    return out / "specs" / family / f"{instance}.sched"


def records_path(out: Path, family: str, instance: str) -> Path:
    return out / "records" / family / f"{instance}.jsonl"


@lru_cache(maxsize=32)
def bks_table(path: str | None) -> dict[str, BksRow]:
    return read_bks(path) if path else {}


def import_item(item: Item) -> Any:
    """Import one selected instance (an IR Instance)."""
    from schedc.importers import FORMATS
    from schedc.importers.nsplib import import_nsplib

    bks = bks_table(item.bks_path)
    if item.family == "nsplib":
        return import_nsplib(Path(item.paths[0]), Path(item.paths[1]), bks)
    return FORMATS[FORMAT_OF[item.family]](Path(item.paths[0]), bks)


def load_records(path: Path) -> dict[tuple[str, int], dict[str, Any]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return {}
    try:
        records = [json.loads(line) for line in lines if line.strip()]
    except json.JSONDecodeError:
        return {}  # a damaged file is rebuilt
    return {(r["variant"], r["seed"]): r for r in records}


def make_record(item: Item, rendering: Any, instance: Any, spec: str, answer_mode: str = "text",
            spec_sha256: str = "") -> dict[str, Any]:
    """One dataset record (a flat, schema-stable JSON object: names as a list of pairs).

    In solver-code mode the prompt is the rendering's user prompt followed by the solver-code
    stanza (:func:`schedc.bench.solver_code.instruction`).
    """
    from schedc.bench.solver_code import instruction

    meta = instance.meta
    prompt = rendering.user_prompt()
    if answer_mode == "solver-code":
        prompt = f"{prompt}\n\n{instruction()}"
    return {"id": record_id(item.family, instance.name, rendering.variant, rendering.seed),
            "instance": instance.name, "family": item.family, "difficulty": item.difficulty,
            "variant": rendering.variant, "seed": rendering.seed, "system": rendering.system,
            "prompt": prompt, "response_format": rendering.response_format, "answer_mode": answer_mode,
            "names": [{"ir": k, "shown": v} for k, v in rendering.names.items()],
            "bks": meta.bks, "bks_kind": meta.bks_kind, "spec": spec, "spec_sha256": spec_sha256}


def write_records(target: Path, have: dict[tuple[str, int], dict[str, Any]]) -> None:
    lines = [json.dumps(have[k], ensure_ascii=False, sort_keys=True) for k in sorted(have, key=_key_order)]
    write_if_changed(target, "\n".join(lines) + "\n")


def _key_order(key: tuple[str, int]) -> tuple[int, str, int]:
    variants = list(DEFAULT_VARIANTS)
    return (variants.index(key[0]) if key[0] in variants else len(variants), key[0], key[1])


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a JSON-lines file; a SchedcError naming the bad line otherwise."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise SchedcError.at("B201", f"cannot read {path}: {exc.strerror or exc}") from None
    records = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise SchedcError.at("B202", f"not a JSON line: {exc.msg}", file=str(path), line=number) from None
        if not isinstance(record, dict):
            raise SchedcError.at("B202", "each line must be a JSON object", file=str(path), line=number)
        records.append(record)
    return records


def load_dataset(out: Path) -> list[dict[str, Any]]:
    """The dataset records of a built benchmark."""
    path = Path(out) / "dataset.jsonl"
    if not path.is_file():
        raise SchedcError.at("B203", f"no dataset in {out}", hint="run `schedc bench build` first")
    return read_jsonl(path)


def filter_records(records: list[dict[str, Any]], families: Sequence[str] | None = None,
                   instances: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """The records of the given families and instances (``name`` or ``family/name``); None keeps all."""
    from schedc.bench.selection import FAMILIES

    unknown = sorted(set(families or ()) - set(FAMILIES))
    if unknown:
        raise SchedcError.at("B207", f"unknown family {unknown[0]!r}", hint="families: " + ", ".join(FAMILIES))
    wanted = set(instances or ())
    return [r for r in records if (families is None or r["family"] in families)
            and (instances is None or r["instance"] in wanted or f"{r['family']}/{r['instance']}" in wanted)]


def read_reference_table(folder: Path) -> list[dict[str, str]]:
    """The rows of ``folder/reference.csv`` (none when it is missing or unreadable)."""
    try:
        with (Path(folder) / "reference.csv").open(encoding="utf-8", newline="") as handle:
            return list(csv.DictReader(handle))
    except OSError:
        return []


def read_references(folder: Path) -> dict[tuple[str, str], dict[str, Any]]:
    """(family, instance) → {"value", "kind"} of ``folder/reference.csv`` where the source has no BKS.

    Only rows whose reference is our own verified objective (no ``bks``) are returned: where a BKS
    exists the instance already carries it. A missing or unreadable table gives no references.
    """
    found = {}
    for row in read_reference_table(folder):
        if row.get("bks") or not (row.get("reference") or "").lstrip("-").isdigit():
            continue
        found[(row["family"], row["instance"])] = {"value": int(row["reference"]),
                                                   "kind": row.get("reference_kind") or "upper_bound"}
    return found
