"""Themes: domains with vocabulary and entity-name pools, read from data files.

A theme file ``templates/themes/<family>.toml`` lists ``[[domain]]`` tables::

    [[domain]]
    id = "bakery"
    setting = "an artisan bakery"
    words = { job = "order", jobs = "orders", unit = "minute", units = "minutes" }
    scale = { job = "Batch {n} of {name}" }          # optional, per role
    [domain.pools]
    machine = ["Deck oven", "Spiral mixer", ...]
    job = { combine = [["Rye", "Spelt"], ["loaves", "rolls"]] }   # "Rye loaves", ...

Pools are keyed by *role*: ``job``, ``machine`` (unary resources), ``activity``,
``renewable``, ``nonrenewable`` (resources by kind) or an entity class (``course``, ``nurse``).
A file may say ``extends = "jobshop"`` to reuse another family's domains. A themed rendering
draws a domain, then a random injective naming from each pool; a pool that runs out is
reused with its role's scale modifier (``Batch 2 of Rye loaves``). A family without a theme
file renders with canonical names in every variant.
"""

from __future__ import annotations

import itertools
import random
import tomllib
from collections.abc import Sequence
from functools import cache
from pathlib import Path

import msgspec

from schedc.diagnostics import SchedcError
from schedc.ir import Family, Instance
from schedc.names import canonical_names
from schedc.resources import data_dir

DEFAULT_SCALE = {"machine": "{name} {n}", "renewable": "{name} {n}", "nonrenewable": "{name} {n}"}
FALLBACK_SCALE = "Batch {n} of {name}"


class Domain(msgspec.Struct, frozen=True, kw_only=True):
    """One theme domain: its setting phrase, vocabulary, name pools and scale modifiers."""

    id: str
    setting: str
    words: dict[str, str] = {}
    pools: dict[str, tuple[str, ...]] = {}
    scale: dict[str, str] = {}

    def scale_name(self, role: str, name: str, n: int) -> str:
        """The ``n``-th reuse of pool name ``name`` (n ≥ 2)."""
        pattern = self.scale.get(role) or DEFAULT_SCALE.get(role, FALLBACK_SCALE)
        return pattern.format(n=n, name=name)


def theme_file(family: str, search: Sequence[Path] = ()) -> Path | None:
    """The theme file of ``family``: beside the spec (``templates/themes``) first, then built-in."""
    for folder in [*(Path(s) / "templates" for s in search), data_dir("templates")]:
        path = folder / "themes" / f"{family}.toml"
        if path.is_file():
            return path
    return None


def load_domains(family: str, search: Sequence[Path] = ()) -> tuple[Domain, ...]:
    """The domains of a family's theme (empty when it has no theme file)."""
    path = theme_file(family, search)
    if path is None:
        return ()
    return _load(path.resolve(), path.stat().st_mtime_ns, tuple(Path(s) for s in search))


@cache
def _load(path: Path, mtime_ns: int, search: tuple[Path, ...]) -> tuple[Domain, ...]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise SchedcError.at("E610", f"cannot read theme file: {exc}", file=str(path)) from None
    domains = [_domain(raw, path) for raw in data.get("domain", [])]
    if "extends" in data:
        domains = [*load_domains(str(data["extends"]), search), *domains]
    return tuple(domains)


def _domain(raw: dict, path: Path) -> Domain:
    pools = {role: _pool(role, value, path) for role, value in raw.get("pools", {}).items()}
    try:
        return msgspec.convert({**raw, "pools": pools}, Domain)
    except msgspec.ValidationError as exc:
        raise SchedcError.at("E611", f"bad theme domain {raw.get('id', '?')!r}: {exc}", file=str(path)) from None


def _pool(role: str, value: object, path: Path) -> tuple[str, ...]:
    """A pool: a list of names, or ``{combine = [[...], [...]]}`` (every combination, joined by blanks)."""
    if isinstance(value, dict) and "combine" in value:
        names = tuple(" ".join(parts) for parts in itertools.product(*value["combine"]))
    elif isinstance(value, list):
        names = tuple(str(v) for v in value)
    else:
        raise SchedcError.at("E611", f"pool {role!r} must be a list or {{combine = [...]}}", file=str(path))
    keys = [" ".join(n.split()).casefold() for n in names]
    if len(set(keys)) != len(keys):
        duplicates = sorted({k for k in keys if keys.count(k) > 1})
        raise SchedcError.at("E612", f"pool {role!r} repeats names: {', '.join(duplicates[:5])}", file=str(path))
    return names


# --------------------------------------------------------------------------- naming


def roles_of(instance: Instance) -> dict[str, list[str]]:
    """The IR names an instance gives each theme role, in declaration order."""
    roles: dict[str, list[str]] = {}
    jobs = list(dict.fromkeys(a.job for a in instance.activities if a.job is not None))
    if jobs:
        roles["job"] = jobs
    for activity in instance.activities:
        if activity.job is None:
            roles.setdefault("activity", []).append(activity.name)
    for resource in instance.resources:
        roles.setdefault("machine" if resource.kind == "unary" else resource.kind, []).append(resource.name)
    for entity in instance.entities:
        members = roles.setdefault(entity.cls, [])
        if entity.name not in members:  # entities may describe resources of the same role (dfjsp machines)
            members.append(entity.name)
    return roles


def pick_domain(domains: Sequence[Domain], rng: random.Random) -> Domain:
    """The domain of a themed rendering (the first draw of the theme stream)."""
    return rng.choice(list(domains))


def themed_names(instance: Instance, family: Family, domain: Domain, rng: random.Random) -> dict[str, str]:
    """IR name → themed display name: canonical names, replaced role by role from the pools."""
    names = canonical_names(instance, family)
    free = family.decision.free if family.decision else None  # the day off keeps the name the answers use
    for role, members in sorted(roles_of(instance).items()):
        pool = domain.pools.get(role)
        members = [m for m in members if m != free]
        if pool:
            names.update(zip(members, draw(domain, role, pool, len(members), rng), strict=True))
    step_word = dict(family.roles).get("operation", "step")
    for activity in instance.activities:
        if activity.job is not None:
            names[activity.name] = f"{names[activity.job]} {step_word} {activity.step}"
    return names


def draw(domain: Domain, role: str, pool: Sequence[str], count: int, rng: random.Random) -> list[str]:
    """``count`` distinct names from ``pool`` in random order, scaled once the pool runs out."""
    shuffled = list(pool)
    rng.shuffle(shuffled)
    size = len(shuffled)
    return [shuffled[i] if i < size else domain.scale_name(role, shuffled[i % size], i // size + 1)
            for i in range(count)]


# --------------------------------------------------------------------------- vocabulary


IRREGULAR = {"curriculum": "curricula", "person": "people", "staff": "staff", "child": "children"}


def plural(word: str) -> str:
    """A plain English plural (``activity`` → ``activities``, ``batch`` → ``batches``)."""
    head, _, last = word.rpartition(" ")
    if last in IRREGULAR:
        return f"{head} {IRREGULAR[last]}".strip()
    if word.endswith("y") and word[-2:-1] not in tuple("aeiou"):
        return word[:-1] + "ies"
    if word.endswith(("s", "sh", "ch", "x")):
        return word + "es"
    return word + "s"


def vocabulary(family: Family, domain: Domain | None) -> dict[str, str]:
    """Role words (singular and plural) and the time unit, themed when a domain is given."""
    words = {"unit": "time unit", "units": "time units"}
    for role, word in family.roles:
        words[role] = word
        words[plural(role)] = plural(word)
    if domain is not None:
        words.update(domain.words)
    return words
