"""Theme hygiene (issue 17, items 5 and 6): what a themed rendering calls things.

Over every bundled example and the largest shared instances × seeds 1–3: every name a
themed variant shows is themed (no raw data id: entities, and attribute values that are
names, such as INRC skills and ITC teachers), injective, and no two names share a word
(role and function words aside) or lie within Damerau–Levenshtein distance 2 (restricted,
casefolded); the names do not depend on PYTHONHASHSEED; a family without a theme file of
its own is themed from the generic domains. The checks here are written independently of
the guard in :mod:`schedc.render.themes` (whole names, every pair).
"""

from __future__ import annotations

import itertools
import json
import os
import re
import subprocess
import sys
import tomllib
from functools import cache
from pathlib import Path

import pytest

from schedc.importers import import_paths
from schedc.ir import Family, Instance
from schedc.ir.names import canonical_names
from schedc.lang.family import load_family
from schedc.lang.load import load_instance
from schedc.lang.resources import data_dir
from schedc.render.engine import naming
from schedc.render.model import variant as find_variant
from schedc.render.themes import (
    FUNCTION_WORDS,
    GENERIC,
    Domain,
    attribute_role,
    display_name,
    has_own_theme,
    is_verbatim_value,
    load_domains,
    shared_pools,
    themed_roles,
    vocabulary,
)
from tests.conftest import SHARED

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
THEMES = data_dir("templates") / "themes"
SEEDS = (1, 2, 3)
THEMED = ("v3a", "v4")
BUILT_IN_EXAMPLES = ("ft06", "fjsp_small", "rcpsp_small", "mrcpsp_small", "dfjsp_small", "itc2007_small",
                     "inrc2010_small", "nsplib_small")
LARGEST = {"inrc2010:long01": ("inrc2010", "inrc2010/long01.xml"),  # 49 employees
           "itc2007:comp07": ("itc2007", "itc2007/comp07.ctt"),  # 131 courses, 99 teachers
           "itc2007:comp12": ("itc2007", "itc2007/comp12.ctt"),  # 150 curricula
           "jsplib:tai_100_10_1": ("jsplib", "jsplib/tai_100_10_1.txt"),  # 100 jobs
           "psplib:j1201_1": ("psplib-sm", "psplib-sm/j120/j1201_1.sm")}  # 120 activities
"""The largest shared instances per naming load (skipped when ../shared/data is absent)."""


@cache
def instance_of(key: str) -> Instance:
    if key in LARGEST:
        fmt, part = LARGEST[key]
        if not (SHARED / part).exists():
            pytest.skip(f"{SHARED / part} is absent")
        return import_paths(fmt, [SHARED / part])[0]
    return load_instance(EXAMPLES / f"{key}.sched")


CASES = [*BUILT_IN_EXAMPLES, *LARGEST]


# ---------------------------------------------------------------------------- independent checks


def words(name: str) -> set[str]:
    return set(re.findall(r"[^\W\d_]+", name.casefold()))


def key(name: str) -> str:
    return " ".join(name.split()).casefold()


def osa(a: str, b: str) -> int:
    """Restricted Damerau–Levenshtein distance, the textbook dynamic programme."""
    d = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        d[i][0] = i
    for j in range(len(b) + 1):
        d[0][j] = j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]


def near_pairs(names: list[str]) -> list[tuple[str, str]]:
    """Every pair within distance 2: candidates share a ≤2-deletion variant, then the exact distance."""
    by_variant: dict[str, set[int]] = {}
    keys = [key(n) for n in names]
    for index, text in enumerate(keys):
        variants = {text} | {text[:i] + text[i + 1:] for i in range(len(text))}
        variants |= {v[:i] + v[i + 1:] for v in list(variants) for i in range(len(v))}
        for v in variants:
            by_variant.setdefault(v, set()).add(index)
    candidates = {(i, j) for group in by_variant.values() for i, j in itertools.combinations(sorted(group), 2)}
    return [(names[i], names[j]) for i, j in sorted(candidates) if osa(keys[i], keys[j]) <= 2]


def exempt(instance: Instance, family: Family, domain: Domain) -> set[str]:
    """Words names may share: function words and the rendering's role words (``Machine``, ``nurse``,
    and the role names themselves, which neutral labels use: ``Group Velmor``)."""
    out = set(FUNCTION_WORDS) | {"resource"}
    for word in [*vocabulary(family, domain).values(), *themed_roles(instance, family, domain)]:
        out |= words(word)
    return out


def hygiene(shown: list[str], allowed: set[str]) -> list[str]:
    problems = [f"{a!r} and {b!r} share {sorted((words(a) & words(b)) - allowed)}"
                for a, b in itertools.combinations(shown, 2) if (words(a) & words(b)) - allowed]
    problems += [f"{a!r} and {b!r} are within distance 2" for a, b in near_pairs(shown)]
    return problems


# ---------------------------------------------------------------------------- what a rendering shows


def themed(instance: Instance, family: Family, variant: str, seed: int,
           search: tuple[Path, ...] = ()) -> tuple[Domain, dict[str, str]]:
    domain, names = naming(instance, family, find_variant(variant), seed, search)
    assert domain is not None, f"{instance.name} {variant}: no theme"
    return domain, names


def name_attribute_values(instance: Instance, family: Family, domain: Domain) -> list[tuple[str, str]]:
    """(role, value) of every value of a ``name``/``names`` attribute that is a name (not data)."""
    known = roles_by_name(instance)
    out = []
    for cls in family.classes:
        for decl in cls.attributes:
            if decl.type not in ("name", "names") or decl.name in domain.verbatim:
                continue
            for entity in instance.entities:
                value = entity.attrs.get(decl.name) if entity.cls == cls.name else None
                for v in ([value] if isinstance(value, str) else list(value or ())):
                    if not is_verbatim_value(v):
                        out.append((known.get(v, attribute_role(decl.name, decl.type == "names")), v))
    return out


def roles_by_name(instance: Instance) -> dict[str, str]:
    """IR name → the class of the entity of that name (resource and activity names included)."""
    out: dict[str, str] = {a.name: "activity" for a in instance.activities}
    out |= {a.job: "job" for a in instance.activities if a.job is not None}
    out |= {r.name: r.kind for r in instance.resources}
    for cls in {e.cls for e in instance.entities}:  # a class whose IR names others share (INRC contract 0) wins
        out |= {e.name: cls for e in instance.entities if e.cls == cls and e.name not in out}
    return out


def shown_names(instance: Instance, family: Family, domain: Domain,
                names: dict[str, str]) -> list[tuple[str, str, str]]:
    """(role, IR name, display name) of every name the themed rendering renames."""
    return [(role, member, display_name(names, role, member))
            for role, members in themed_roles(instance, family, domain).items() for member in members]


# ---------------------------------------------------------------------------- the properties


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("case", CASES)
def test_no_raw_data_id_is_displayed(case: str, seed: int) -> None:
    instance = instance_of(case)
    family = load_family(instance.family)
    canonical = canonical_names(instance, family)
    for variant in THEMED:
        domain, names = themed(instance, family, variant, seed)
        raw = sorted({v for role, v in name_attribute_values(instance, family, domain)
                      if display_name(names, role, v) in (v, canonical.get(v))})
        assert not raw, f"{variant}: attribute values shown as their data ids: {raw[:5]}"
        raw = sorted({m for _, m, shown in shown_names(instance, family, domain, names)
                      if shown in (m, canonical.get(m))})
        assert not raw, f"{variant}: names left canonical: {raw[:5]}"


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("case", CASES)
def test_themed_names_are_injective_and_apart(case: str, seed: int) -> None:
    instance = instance_of(case)
    family = load_family(instance.family)
    domain, names = themed(instance, family, "v4", seed)
    assert naming(instance, family, find_variant("v3a"), seed)[1] == names  # one theme stream for both
    shown = [s for _, _, s in shown_names(instance, family, domain, names)]
    repeated = sorted({key(s) for s in shown if [key(t) for t in shown].count(key(s)) > 1})
    assert not repeated, f"names shown twice: {repeated[:5]}"
    problems = hygiene(shown, exempt(instance, family, domain))
    assert not problems, f"{domain.id}: {len(problems)} clashes: " + "; ".join(problems[:6])


def test_roles_sharing_an_ir_name_are_told_apart() -> None:
    """INRC contracts and employees are both numbered from 0: a contract is not shown as a nurse."""
    instance = instance_of("inrc2010:long01")
    family = load_family(instance.family)
    for seed in SEEDS:
        _, names = themed(instance, family, "v3a", seed)
        contracts = {display_name(names, "contract", c.name) for c in instance.entities if c.cls == "contract"}
        employees = {display_name(names, "employee", e.name) for e in instance.entities if e.cls == "employee"}
        assert not contracts & employees
        assert all(names[e.name] == display_name(names, "employee", e.name)  # answers name employees
                   for e in instance.entities if e.cls == "employee")


@pytest.mark.parametrize("case", BUILT_IN_EXAMPLES)
def test_canonical_variants_keep_canonical_names(case: str) -> None:
    instance = instance_of(case)
    family = load_family(instance.family)
    for variant in ("v1", "v2", "v3b"):
        assert naming(instance, family, find_variant(variant), 7)[1] == canonical_names(instance, family)


DETERMINISM = """
import json, sys
from pathlib import Path
from schedc.lang.load import load_instance
from schedc.render.engine import display_names
out = {}
for name in sys.argv[1:]:
    instance = load_instance(Path("examples") / f"{name}.sched")
    out[name] = {seed: display_names(instance, variant="v4", seed=seed) for seed in (1, 2, 3)}
print(json.dumps(out, sort_keys=True))
"""


def test_names_do_not_depend_on_the_hash_seed() -> None:
    cases = ("ft06", "rcpsp_small", "inrc2010_small", "itc2007_small", "nsplib_small", "dfjsp_small")
    outputs = set()
    for hash_seed in ("0", "1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run([sys.executable, "-c", DETERMINISM, *cases], cwd=ROOT, env=env, check=True,
                              capture_output=True, text=True)
        outputs.add(done.stdout)
    assert len(outputs) == 1
    from schedc.render.engine import display_names

    here = {name: {str(s): display_names(instance_of(name), variant="v4", seed=s) for s in (1, 2, 3)}
            for name in cases}
    assert json.loads(outputs.pop()) == here


# ---------------------------------------------------------------------------- a family without a theme file


def user_family(tmp_path: Path, builtin: str, name: str, example: str) -> tuple[Instance, Family, tuple[Path, ...]]:
    """A copy of a built-in family under a new name (no theme file, no templates) and its example."""
    spec = (data_dir("specs") / f"{builtin}.sched").read_text(encoding="utf-8")
    (tmp_path / f"{name}.sched").write_text(spec.replace(f"family {builtin} {{", f"family {name} {{"), encoding="utf-8")
    text = (EXAMPLES / f"{example}.sched").read_text(encoding="utf-8")
    path = tmp_path / f"{example}_user.sched"
    path.write_text(text.replace(f"family {builtin}", f"family {name}", 1), encoding="utf-8")
    search = (tmp_path,)
    instance = load_instance(path, search)
    return instance, load_family(name, search), search


@pytest.mark.parametrize(("builtin", "example"), [("jobshop", "ft06"), ("rcpsp", "rcpsp_small"),
                                                   ("mrcpsp", "mrcpsp_small"), ("nsplib", "nsplib_small"),
                                                   ("inrc2010", "inrc2010_small"), ("itc2007", "itc2007_small")])
def test_a_family_without_theme_file_gets_generic_themed_names(tmp_path: Path, builtin: str, example: str) -> None:
    instance, family, search = user_family(tmp_path, builtin, f"my{builtin}", example)
    assert not has_own_theme(family.name, search)
    generic = {d.id for d in load_domains(GENERIC)}
    canonical = canonical_names(instance, family)
    for seed in SEEDS:
        domain, names = themed(instance, family, "v4", seed, search)
        assert domain.id in generic
        shown = shown_names(instance, family, domain, names)
        roles = {role for role, _, _ in shown}
        expected = set(themed_roles(instance, family, domain))
        assert roles == expected and expected >= _entity_roles(instance, family), roles
        left = [m for _, m, s in shown if s in (m, canonical.get(m))]
        assert not left, f"canonical names in a themed variant: {left[:5]}"
        raw = [v for role, v in name_attribute_values(instance, family, domain)
               if display_name(names, role, v) == v]
        assert not raw, f"data ids shown: {raw[:5]}"
        assert not hygiene([s for _, _, s in shown], exempt(instance, family, domain))


def _entity_roles(instance: Instance, family: Family) -> set[str]:
    """The roles a generic domain must theme: interval roles and every entity class."""
    roles = {"job" if a.job else "activity" for a in instance.activities}
    roles |= {"machine" if r.kind == "unary" else r.kind for r in instance.resources}
    return roles | {e.cls for e in instance.entities}


def test_generic_domains_cover_every_role() -> None:
    domains = load_domains(GENERIC)
    assert len(domains) >= 3 and load_domains("no_such_family") == domains
    for domain in domains:
        assert {"job", "machine", "activity", "renewable", "nonrenewable", "agent", "value", "entity"} <= set(
            domain.pools), domain.id
    assert has_own_theme("jobshop") and not has_own_theme(GENERIC)


# ---------------------------------------------------------------------------- the pools themselves


def theme_files() -> list[Path]:
    return sorted(THEMES.glob("*.toml"))


@pytest.mark.parametrize("path", theme_files(), ids=lambda p: p.stem)
def test_list_pools_obey_the_name_rules(path: Path) -> None:
    """Within a list pool no two names share a word or are near, so its whole size is usable."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    problems = []
    for raw in data.get("domain", []):
        allowed = set(FUNCTION_WORDS) | {w for word in raw.get("words", {}).values() for w in words(word)}
        for role, pool in raw.get("pools", {}).items():
            if isinstance(pool, dict) and "shared" in pool:
                assert pool["shared"] in shared_pools(), f"{raw['id']}.{role}: unknown shared pool"
            elif isinstance(pool, list):
                problems += [f"{raw['id']}.{role}: {p}" for p in hygiene(pool, allowed)]
                bad = [n for n in pool if set(n) & set("|,;:=") or n[-1].isdigit()
                       or {"off", "free", "step"} & words(n)]
                problems += [f"{raw['id']}.{role}: unusable in answers: {bad}"] if bad else []
    assert not problems, "\n".join(problems[:10])


def test_shared_person_pool_is_large_enough_for_the_largest_rosters() -> None:
    person = shared_pools()["person"]
    given = {n.split()[0] for n in person}
    family = {n.split()[-1] for n in person}
    assert min(len(given), len(family)) >= 110  # ITC comp07: 99 teachers; INRC long: 50 employees
    assert not given & family
