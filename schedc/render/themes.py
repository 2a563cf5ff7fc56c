"""Themes: domains with vocabulary and entity-name pools, read from data files.

A theme file ``templates/themes/<family>.toml`` lists ``[[domain]]`` tables::

    verbatim = ["start", "end"]                      # optional: name attributes shown as they are
    [[domain]]
    id = "bakery"
    setting = "an artisan bakery"
    words = { job = "order", jobs = "orders", unit = "minute", units = "minutes" }
    labels = { job = "{word} {tag}" }                # optional, per role: the neutral label
    [domain.pools]
    machine = ["Deck oven", "Spiral mixer", ...]
    job = { combine = [["Rye", "Spelt"], ["loaves", "rolls"]] }   # "Rye loaves", ...
    employee = { shared = "person" }                 # a pool of generic.toml's [shared] table

Pools are keyed by *role*: ``job``, ``machine`` (unary resources), ``activity``,
``renewable``, ``nonrenewable`` (resources by kind), an entity class (``course``, ``nurse``)
or a name attribute (``skill`` for ``skills:names``, ``teacher`` for ``teacher:name``: the
attribute name, singular). A class without a pool of its own uses the pool ``agent`` (the
decision's agent class), ``value`` (its value class) or ``entity`` (any other class).
A file may say ``extends = "jobshop"`` to reuse another family's domains.

**Fallback.** A family without a theme file of its own (a user-written family) gets the
generic domains of ``templates/themes/generic.toml``: :func:`load_domains` returns them
(:func:`has_own_theme` tells the two cases apart), so its themed variants are themed too.

**Names.** :func:`themed_names` (the API the renderer calls; the same dict the verifier
reads answers with) maps IR names to display names: canonical names (:mod:`schedc.ir.names`),
replaced role by role from the pools, plus every *attribute value that is a name* and not
an entity (INRC skills, ITC teacher ids, machine groups), which the renderer should show
through the same dict (:func:`display_name`, below). Values the theme file lists as
``verbatim``, clock times and weekday patterns (``SaturdaySunday``) keep their text. The
day off (``decision.free``), operations (``<job> step <n>``) and classes a domain has no
pool for (dfjsp events) keep their canonical form.

**Hygiene** (:class:`NameGuard`): among all names one themed rendering draws (every role
together), no two share a *word* (a casefolded run of letters; function words, the rendering's
role words such as ``nurse`` or ``course`` and the fixed words of labels are exempt, as
``Machine`` is in ``Machine 3``) and no two are within restricted Damerau–Levenshtein
distance 2 of each other (casefolded, blanks collapsed). Pool names are drawn in a random
order and skipped when they break a rule. **One class, one form:** the role word is part of every
name of a class or of none, so that "the work order name exactly as written" is never in doubt.
When a role's pool runs out, the next names are invented tags alone (``Huldhar``), like the pool
names free of the role word (no pool name carries its role's word; ``tests/test_themes.py``);
a role without a pool gets the neutral label ``"{word} {tag}"`` for every member (``Teacher
Velmor``, ``Group Dostan``: the role word, else the role's name, and a fresh invented tag), unless
the domain's ``labels`` say otherwise; tags grow a syllable when an instance crowds them. A pool's
capacity under these rules is its size for a list (list pools are written to obey the rules;
``tests/test_themes.py`` checks them) and the number of words of its smallest factor for
``combine`` (``Rye loaves`` excludes every other rye and every other loaf). ``scale`` and
:func:`draw` (numbered reuse, ``Batch 2 of Rye loaves``) remain for callers that want it;
:func:`themed_names` no longer uses them, since a numbered reuse shares words by design.
All draws come from the ``random.Random`` passed in, never the global stream or ``hash()``.

**API for renderers.** ``domain = pick_domain(load_domains(family.name, search), rng)``, then
``names = themed_names(instance, family, domain, rng)``; show an entity, resource or
attribute value ``x`` of role ``r`` as ``display_name(names, r, x)`` (roles: an entity's class,
``job``/``machine``/``activity``/``renewable``/``nonrenewable``, or :func:`attribute_role` of
the attribute: ``skill``, ``teacher``, ``group``). :func:`themed_roles` lists what is renamed.
"""

from __future__ import annotations

import itertools
import random
import re
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from functools import cache
from pathlib import Path

import msgspec

from schedc.core.diagnostics import SchedcError
from schedc.ir import Family, Instance
from schedc.ir.names import FUNCTION_WORDS, NameGuard, canonical_names, words_of
from schedc.lang.resources import data_dir

GENERIC = "generic"
"""The theme file of families without one of their own."""

DEFAULT_SCALE = {"machine": "{name} {n}", "renewable": "{name} {n}", "nonrenewable": "{name} {n}"}
FALLBACK_SCALE = "Batch {n} of {name}"
DEFAULT_LABEL = "{word} {tag}"
BARE_LABEL = "{tag}"
"""What follows the names of a pool that runs out: an invented tag alone, without the role word."""


class Domain(msgspec.Struct, frozen=True, kw_only=True):
    """One theme domain: its setting phrase (none for the generic domains: a family without a theme of
    its own is not placed anywhere), vocabulary, name pools, labels and scale modifiers."""

    id: str
    setting: str = ""
    words: dict[str, str] = {}
    pools: dict[str, tuple[str, ...]] = {}
    labels: dict[str, str] = {}
    scale: dict[str, str] = {}
    verbatim: tuple[str, ...] = ()

    def scale_name(self, role: str, name: str, n: int) -> str:
        """The ``n``-th reuse of pool name ``name`` (n ≥ 2), as :func:`draw` names it."""
        pattern = self.scale.get(role) or DEFAULT_SCALE.get(role, FALLBACK_SCALE)
        return pattern.format(n=n, name=name)


def theme_file(family: str, search: Sequence[Path] = ()) -> Path | None:
    """The theme file of ``family``: beside the spec (``templates/themes``) first, then built-in."""
    for folder in [*(Path(s) / "templates" for s in search), data_dir("templates")]:
        path = folder / "themes" / f"{family}.toml"
        if path.is_file():
            return path
    return None


def has_own_theme(family: str, search: Sequence[Path] = ()) -> bool:
    """Whether ``family`` has a theme file (else :func:`load_domains` gives the generic domains)."""
    return family != GENERIC and theme_file(family, search) is not None


def load_domains(family: str, search: Sequence[Path] = ()) -> tuple[Domain, ...]:
    """The domains of a family's theme; the generic domains when it has no theme file."""
    path = theme_file(family, search) if family != GENERIC else None
    path = path or theme_file(GENERIC, search)
    if path is None:
        return ()
    return _load(path.resolve(), path.stat().st_mtime_ns, tuple(Path(s) for s in search))


def _read(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise SchedcError.at("E610", f"cannot read theme file: {exc}", file=str(path)) from None


@cache
def _load(path: Path, mtime_ns: int, search: tuple[Path, ...]) -> tuple[Domain, ...]:
    data = _read(path)
    verbatim = tuple(str(v) for v in data.get("verbatim", ()))
    domains = [_domain(raw, path, verbatim) for raw in data.get("domain", [])]
    if "extends" in data:
        inherited = load_domains(str(data["extends"]), search)
        domains = [*(msgspec.structs.replace(d, verbatim=tuple(dict.fromkeys(d.verbatim + verbatim)))
                     for d in inherited), *domains]
    return tuple(domains)


def _domain(raw: dict, path: Path, verbatim: tuple[str, ...]) -> Domain:
    pools = {role: _pool(role, value, path) for role, value in raw.get("pools", {}).items()}
    try:
        return msgspec.convert({**raw, "pools": pools, "verbatim": verbatim}, Domain)
    except msgspec.ValidationError as exc:
        raise SchedcError.at("E611", f"bad theme domain {raw.get('id', '?')!r}: {exc}", file=str(path)) from None


def _pool(role: str, value: object, path: Path) -> tuple[str, ...]:
    """A pool: a list of names, ``{combine = [[...], [...]]}`` (every combination, joined by
    blanks) or ``{shared = "person"}`` (a pool of the built-in ``generic.toml``'s ``[shared]``)."""
    if isinstance(value, dict) and "shared" in value:
        shared = shared_pools()
        if value["shared"] not in shared:
            raise SchedcError.at("E611", f"pool {role!r}: no shared pool {value['shared']!r}", file=str(path))
        return shared[value["shared"]]
    if isinstance(value, dict) and "combine" in value:
        names = tuple(" ".join(parts) for parts in itertools.product(*value["combine"]))
    elif isinstance(value, list):
        names = tuple(str(v) for v in value)
    else:
        raise SchedcError.at("E611", f"pool {role!r} must be a list, {{combine = [...]}} or {{shared = ...}}",
                             file=str(path))
    keys = [" ".join(n.split()).casefold() for n in names]
    if len(set(keys)) != len(keys):
        duplicates = sorted({k for k in keys if keys.count(k) > 1})
        raise SchedcError.at("E612", f"pool {role!r} repeats names: {', '.join(duplicates[:5])}", file=str(path))
    return names


@cache
def shared_pools() -> dict[str, tuple[str, ...]]:
    """The built-in shared pools (``[shared]`` of ``templates/themes/generic.toml``)."""
    path = data_dir("templates") / "themes" / f"{GENERIC}.toml"
    raw = _read(path).get("shared", {})
    if any(isinstance(v, dict) and "shared" in v for v in raw.values()):
        raise SchedcError.at("E611", "a shared pool cannot refer to another shared pool", file=str(path))
    return {role: _pool(role, value, path) for role, value in raw.items()}


# --------------------------------------------------------------------------- roles


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


_CLOCK = re.compile(r"^\d{1,2}:\d{2}(:\d{2})?$")
_NO_WORD = re.compile(r"^[\W_]*$")
_WEEKDAYS = re.compile(r"^(monday|tuesday|wednesday|thursday|friday|saturday|sunday)+$", re.IGNORECASE)


def is_verbatim_value(value: str) -> bool:
    """Attribute values that are data, not names: clock times, weekday patterns, dashes."""
    return bool(_CLOCK.match(value) or _WEEKDAYS.match(value) or _NO_WORD.match(value))


def attribute_role(attribute: str, many: bool) -> str:
    """The role of a name attribute: its name, singular for a list (``skills`` → ``skill``)."""
    return attribute[:-1] if many and attribute.endswith("s") and len(attribute) > 1 else attribute


def attribute_roles(instance: Instance, family: Family, verbatim: Sequence[str] = ()) -> dict[str, list[str]]:
    """Role → the values of name attributes that name no entity, resource or activity (INRC
    skills, ITC teachers), in order of appearance; ``verbatim`` attributes are left out."""
    known = {a.name for a in instance.activities} | {a.job for a in instance.activities if a.job is not None}
    known |= {r.name for r in instance.resources} | {e.name for e in instance.entities}
    roles: dict[str, list[str]] = {}
    seen: set[str] = set()
    for cls in family.classes:
        for decl in cls.attributes:
            if decl.type not in ("name", "names") or decl.name in verbatim:
                continue
            members = roles.setdefault(attribute_role(decl.name, decl.type == "names"), [])
            for entity in instance.entities:
                if entity.cls == cls.name:
                    for value in _values(entity.attrs.get(decl.name)):
                        if value not in known and value not in seen and not is_verbatim_value(value):
                            seen.add(value)
                            members.append(value)
    return {role: members for role, members in roles.items() if members}


def _values(value: object) -> tuple[str, ...]:
    if value is None:
        return ()
    return tuple(str(v) for v in value) if isinstance(value, list | tuple) else (str(value),)


def pool_for(domain: Domain, role: str, family: Family) -> tuple[str, ...]:
    """The pool of a role: its own, else the generic pool of its place (agent, value, entity)."""
    if role in domain.pools:
        return domain.pools[role]
    decision = family.decision
    if decision is not None and role == decision.agent:
        return domain.pools.get("agent", ())
    if decision is not None and role == decision.value:
        return domain.pools.get("value", ())
    if family.entity_class(role) is not None:
        return domain.pools.get("entity", ())
    return ()


def pick_domain(domains: Sequence[Domain], rng: random.Random) -> Domain:
    """The domain of a themed rendering (the first draw of the theme stream)."""
    return rng.choice(list(domains))


# --------------------------------------------------------------------------- naming


def themed_names(instance: Instance, family: Family, domain: Domain, rng: random.Random) -> dict[str, str]:
    """IR name → themed display name: canonical names, replaced role by role from the pools
    under the hygiene rules, plus the themed names of name-attribute values.

    An IR name that two roles share (INRC contract ``0`` and employee ``0``) keeps the name
    of the role answers use (the decision's agent, then its value) under its plain key; every
    role has it under ``"<role>:<name>"`` too (:func:`display_name` looks both up)."""
    names = canonical_names(instance, family)
    shown = _themed_roles(instance, family, domain, rng)
    owners: dict[str, list[str]] = {}
    for role, table in shown.items():
        for member in table:
            owners.setdefault(member, []).append(role)
    for role in sorted(shown, key=lambda r: _answer_rank(r, family)):  # answer roles last: they win
        names.update(shown[role])
    for member, roles in owners.items():
        if len(roles) > 1:
            names.update({f"{role}:{member}": shown[role][member] for role in roles})
    step_word = dict(family.roles).get("operation", "step")
    for activity in instance.activities:
        if activity.job is not None:
            names[activity.name] = f"{names[activity.job]} {step_word} {activity.step}"
    return names


def display_name(names: Mapping[str, str], role: str, name: str) -> str:
    """How a rendering shows ``name`` in ``role`` (a contract, a skill): its role-qualified
    entry when two roles share the IR name, else its plain entry, else the name itself."""
    return names.get(f"{role}:{name}") or names.get(name, name)


def themed_roles(instance: Instance, family: Family, domain: Domain) -> dict[str, list[str]]:
    """Role → the IR names (and name-attribute values) a themed rendering renames, in the
    order they are drawn: entity roles with a pool, then attribute roles, each sorted by role."""
    free = family.decision.free if family.decision else None  # the day off keeps the name the answers use
    roles = {role: [m for m in members if m != free] for role, members in sorted(roles_of(instance).items())
             if pool_for(domain, role, family)}
    for role, members in sorted(attribute_roles(instance, family, domain.verbatim).items()):
        roles.setdefault(role, []).extend(members)
    return roles


def _themed_roles(instance: Instance, family: Family, domain: Domain,
                  rng: random.Random) -> dict[str, dict[str, str]]:
    words = vocabulary(family, domain)
    guard = NameGuard(exempt_words(words, domain))
    shown: dict[str, dict[str, str]] = {}
    for role, members in themed_roles(instance, family, domain).items():
        label = Label(domain.labels.get(role, DEFAULT_LABEL), _capitalised(_role_word(role, words)))
        drawn = draw_hygienic(pool_for(domain, role, family), len(members), label, guard, rng)
        shown[role] = dict(zip(members, drawn, strict=True))
    return shown


def _answer_rank(role: str, family: Family) -> int:
    decision = family.decision
    if decision is None:
        return 0
    return 2 if role == decision.agent else 1 if role == decision.value else 0


ROLE_WORD_FALLBACK = {"renewable": "resource", "nonrenewable": "resource"}
"""The role whose word labels a role the family gives no word of its own."""


def _role_word(role: str, words: Mapping[str, str]) -> str:
    return words.get(role) or words.get(ROLE_WORD_FALLBACK.get(role, ""), role)


def _capitalised(word: str) -> str:
    return word[:1].upper() + word[1:]


def draw(domain: Domain, role: str, pool: Sequence[str], count: int, rng: random.Random) -> list[str]:
    """``count`` distinct names from ``pool`` in random order, scaled once the pool runs out
    (no hygiene: :func:`draw_hygienic` is what :func:`themed_names` uses)."""
    shuffled = list(pool)
    rng.shuffle(shuffled)
    size = len(shuffled)
    return [shuffled[i] if i < size else domain.scale_name(role, shuffled[i % size], i // size + 1)
            for i in range(count)]


def draw_hygienic(pool: Sequence[str], count: int, label: Label, guard: NameGuard, rng: random.Random) -> list[str]:
    """``count`` names: pool names in a random order that ``guard`` admits; once the pool is spent,
    invented names without the role word (``Huldhar``, never ``Work order Huldhar`` next to ``Pewter
    valves``: a reader copying names must not have to guess whether the role word belongs to one).
    A role without a pool gets the neutral label for every member (``Group Dostan``): all or none."""
    order = random_order(pool, rng)
    fallback = label if not pool else Label(BARE_LABEL, label.word)
    out: list[str] = []
    for _ in range(count):
        name = next((c for c in order if guard.fits(c)), None) or fallback.fresh(guard, rng)
        guard.add(name)
        out.append(name)
    return out


def random_order(pool: Sequence[str], rng: random.Random) -> Iterator[str]:
    """The items of ``pool`` in a uniformly random order, drawn lazily (a sparse Fisher–Yates
    shuffle, so a 10,000-name pool costs only the draws that are used)."""
    moved: dict[int, int] = {}
    size = len(pool)
    for i in range(size):
        j = rng.randrange(i, size)
        picked = moved.get(j, j)
        moved[j] = moved.get(i, i)
        yield pool[picked]


class Label(msgspec.Struct, frozen=True):
    """A neutral label pattern (``{word}``: the role word, ``{tag}``: an invented tag)."""

    pattern: str
    word: str

    def fresh(self, guard: NameGuard, rng: random.Random) -> str:
        """A label with a new tag that ``guard`` admits (its fixed words may repeat; tags grow a
        syllable every 200 refusals, so a crowded instance still ends)."""
        guard.allow(words_of(self.pattern.replace("{tag}", " ").format(word=self.word)))
        for attempt in itertools.count():
            name = self.pattern.format(word=self.word, tag=invented_tag(rng, 1 + attempt // 200))
            if guard.fits(name):
                return name
        raise AssertionError("unreachable")


_ONSETS = ("b", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "dr", "gr", "kr",
           "tr", "st", "sk", "pl", "fl")
_VOWELS = ("a", "e", "i", "o", "u")
_CODAS = ("l", "m", "n", "r", "s", "k", "t", "nd", "rt", "ld", "st")
_ENDINGS = ("a", "o", "an", "en", "el", "ar", "or", "is", "us", "in", "on", "ek", "ad")


def invented_tag(rng: random.Random, extra: int = 1) -> str:
    """A pronounceable invented word (``Velmor``, ``Dostan``): onset, vowel, coda, then ``extra``
    times an onset and an ending."""
    parts = [rng.choice(_ONSETS), rng.choice(_VOWELS), rng.choice(_CODAS)]
    for _ in range(extra):
        parts += [rng.choice(_ONSETS[:15]), rng.choice(_ENDINGS)]
    return "".join(parts).capitalize()


# --------------------------------------------------------------------------- hygiene


def exempt_words(words: Mapping[str, str], domain: Domain | None = None) -> frozenset[str]:
    """Words names may share: function words, the rendering's role words and label words."""
    out = set(FUNCTION_WORDS)
    for word in words.values():
        out |= words_of(word)
    for pattern in (domain.labels.values() if domain else ()):
        out |= words_of(re.sub(r"\{[^}]*\}", " ", pattern))
    return frozenset(out)


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


def many(words: Mapping[str, str], name: str, one: str) -> str:
    """The plural word of role or class ``name`` whose singular word is ``one``: the vocabulary's plural entry,
    or the plural of ``one``. A name that is its own plural ("staff") has no plural entry of its own (its
    entry is the singular word), so its plural is always made from ``one``."""
    key = plural(name)
    return words[key] if key != name and key in words else plural(one)


INTERVAL_ROLES = ("job", "machine", "activity", "resource")
"""The roles interval templates name without asking whether the family has them: a family that leaves
one out gets the role's own name (``operation`` stays undefined when not named: templates that say
"step" or "activity" ask for it)."""


def vocabulary(family: Family, domain: Domain | None) -> dict[str, str]:
    """Role words (singular and plural) and the time unit, themed when a domain is given. An interval
    family's roles it does not name are called by their own names (``job``), so that a template of
    the defaults never meets an undefined word; unary resources of a family that names its resources
    but not its machines are called by its resource word (a surgery family's rooms and surgeons are
    not "machines")."""
    words = {"unit": "time unit", "units": "time units"}
    named = dict(family.roles)
    if family.structure == "interval":
        for role in INTERVAL_ROLES:
            words[role], words[plural(role)] = role, plural(role)
        if "machine" not in named and "resource" in named:
            words["machine"], words["machines"] = named["resource"], plural(named["resource"])
    for role, word in family.roles:
        words[role] = word
        if plural(role) != role:  # "staff": the plural key would overwrite the singular word
            words[plural(role)] = plural(word)
    if domain is not None:
        words.update(domain.words)
    return words
