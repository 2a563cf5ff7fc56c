"""The dataset card of a built benchmark: ``OUT/README.md`` with Hugging Face metadata.

``bench build`` writes, beside ``dataset.jsonl``, one file per variant (``data/<variant>.jsonl``)
and a README whose YAML front matter declares the configurations — ``all`` (the default: every
record) and ``<selection>-<variant>`` per variant — with one ``test`` split each, and the record
features, so that ``datasets.load_dataset(OUT)`` loads the benchmark without arguments and
``load_dataset(OUT, "ablation-v2")`` one variant. Each record names its spec file relative to the
dataset root (``spec``) and the spec's SHA-256 (``spec_sha256``).

Licence notes follow SCHEDBench §A.8: the dataset holds renderings (prompts) and canonical
``.sched`` files derived from public benchmark libraries; the source matrices themselves are not
redistributed, and each library's own terms apply to its instances.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

FEATURES: tuple[tuple[str, Any], ...] = (
    ("id", "string"), ("instance", "string"), ("family", "string"), ("difficulty", "string"),
    ("variant", "string"), ("seed", "int64"), ("system", "string"), ("prompt", "string"),
    ("response_format", "string"), ("answer_mode", "string"),
    ("names", [{"ir": "string"}, {"shown": "string"}]), ("bks", "int64"), ("bks_kind", "string"),
    ("spec", "string"), ("spec_sha256", "string"),
)
#: The fields a benchmark of variants (``--perturb``/``--tighten``) adds to every record.
DERIVED_FEATURES: tuple[tuple[str, Any], ...] = (("base", "string"), ("derivation", "string"), ("changes", "string"))
SOURCES = ("JSPLib (ScheduleOpt/benchmarks)", "PSPLIB (single and multi mode)", "ITC-2007 track 3",
           "INRC-2010", "NSPLib")


def variant_file(variant: str) -> str:
    """The per-variant data file, relative to the dataset root."""
    return f"data/{variant}.jsonl"


def _feature_yaml(name: str, kind: Any) -> list[str]:
    if isinstance(kind, str):
        return [f"  - name: {name}", f"    dtype: {kind}"]
    lines = [f"  - name: {name}", "    list:"]
    for field in kind:
        (sub, dtype), = field.items()
        lines += [f"    - name: {sub}", f"      dtype: {dtype}"]
    return lines


def front_matter(selection: str, variants: Sequence[str], records: int, derived: bool = False) -> str:
    """The YAML metadata block (configs, features, licence) of the card."""
    lines = ["---", f"pretty_name: SCHEDBench ({selection})", "license: other", "language:", "- en",
             "task_categories:", "- text-generation", "tags:", "- scheduling", "- constraint-satisfaction",
             "- benchmark", "size_categories:", f"- {_size(records)}", "configs:", "- config_name: all",
             "  default: true", "  data_files:", "  - split: test", "    path: dataset.jsonl"]
    for variant in variants:
        lines += [f"- config_name: {selection}-{variant}", "  data_files:", "  - split: test",
                  f"    path: {variant_file(variant)}"]
    lines += ["dataset_info:", "  features:"]
    for name, kind in FEATURES + (DERIVED_FEATURES if derived else ()):
        lines += [f"  {line}" for line in _feature_yaml(name, kind)]
    return "\n".join(lines) + "\n---\n"


def _size(records: int) -> str:
    for limit, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K")):
        if records < limit:
            return label
    return "100K<n<1M"


def card(manifest: dict[str, Any], records: int, composition_md: str) -> str:
    """The whole README.md: metadata, what the dataset is, its composition, how to load it, licences."""
    selection, variants = manifest["selection"], manifest["variants"]
    body = [
        f"# SCHEDBench — selection `{selection}`", "",
        f"{records} prompts: {len(manifest['instances'])} scheduling instances × variants "
        f"{', '.join(variants)} × seeds {', '.join(map(str, manifest['seeds']))}, answer mode "
        f"`{manifest.get('answer_mode', 'text')}`. Built by `schedc bench build`; answers are verified with "
        "`schedc bench eval` (or `schedc check`) against the `.sched` file named by each record's `spec` "
        "(path relative to this folder, `spec_sha256` its SHA-256).", "",
        "```python", "from datasets import load_dataset", "",
        "data = load_dataset(\"PATH/TO/THIS/FOLDER\")             # every record (config `all`)",
        f"one = load_dataset(\"PATH/TO/THIS/FOLDER\", \"{selection}-{variants[0]}\")  # one variant", "```", "",
        *_derivation_lines(manifest.get("derivation")),
        composition_md.replace("# SCHEDBench composition", "## Composition", 1).rstrip(), "",
        "## Licence", "",
        "This dataset contains renderings (natural-language prompts) and canonical `.sched` encodings of "
        "instances from public benchmark libraries (" + ", ".join(SOURCES) + "). The source matrices are "
        "not redistributed here; obtain them from their libraries, whose terms apply to the instances. "
        "The prompts and the schedc code that produced them are MIT-licensed.",
    ]
    derived = manifest.get("derivation") is not None
    return front_matter(selection, variants, records, derived) + "\n" + "\n".join(body) + "\n"


def _derivation_lines(derivation: dict[str, Any] | None) -> list[str]:
    """The card's paragraph on a benchmark of variants (none for a plain build)."""
    if derivation is None:
        return []
    if derivation["mode"] == "sat":
        made = (f"{derivation['count']} `sat` variants of each selected instance (changes its CP-SAT schedule "
                "keeps feasible; each variant re-solved and verified)")
    else:
        made = (f"each selected instance tightened by {derivation['factor']} (a hard bound on the objective at "
                f"⌊{derivation['factor']} × z*⌋, so that only near-optimal answers are feasible)")
    return [f"The instances are variants, not the originals: {made}, seed {derivation['seed']}. Each record "
            "names its `base` instance, its `derivation` and its `changes`; `variants/<family>/<base>.json` "
            "lists each base's variants with their reference objectives and proofs. Composition counts variants, "
            "each in its base's tier.", ""]


def split_by_variant(lines: Sequence[str], variants: Sequence[str]) -> dict[str, str]:
    """dataset.jsonl lines → the text of each ``data/<variant>.jsonl``."""
    files: dict[str, list[str]] = {v: [] for v in variants}
    for line in lines:
        files[json.loads(line)["variant"]].append(line)
    return {variant_file(v): "".join(f"{x}\n" for x in rows) for v, rows in files.items()}
