"""The semantic audit of renderings: claims against constraints, sentences against claims.

Four checks, each independent of the code it audits:

* **bijection** — every active constraint has exactly one claim and every claim one
  constraint, with equal parameters (recomputed here from the IR), modality and weight;
* **wording** — a claim's rule sentence speaks with the claim's modality (deontic words for
  hard rules, evaluative words and the weight for soft ones, never "must" for a soft rule),
  mentions only the bounds the claim has, and names the counted set the claim counts;
* **contradictions** — no two sentences of one rendering bound the same counted set
  incompatibly, the counted set being read off each sentence's words;
* **interpretation** — :func:`interpret` judges a schedule from a claim alone (never calling a
  kind's ``check``): the audit runs it on boundary probes (each stated bound met exactly and
  missed by one; touching intervals) and on random schedules, and compares its amount with the
  verifier's for every constraint.

Beside them, the **names and coherence** checks (issue 27; :func:`names_audit`): the role word is
part of every display name of a class or of none, and of no name of another class; an entity's
statement shows it, and the entities its attributes name, in their own classes' namespaces; no
sentence is said twice in a row; a family without a theme of its own gets no setting and no names
that are words of some domain; "a"/"an" agree with the word after them.
"""

from __future__ import annotations

import random
import re
from collections import Counter, defaultdict
from collections.abc import Callable
from typing import Any

import msgspec

from schedc.core.solution import Assignment, Solution
from schedc.ir import Family, Instance
from schedc.kinds import kind_name
from schedc.render import Rendering
from schedc.verify.evaluate import evaluate, make_context

COMMON = {"kind", "id", "hard", "weight", "active", "reason", "span"}
WEEKENDS = {"SaturdaySunday": ("Saturday", 2), "FridaySaturdaySunday": ("Friday", 3),
            "SaturdaySundayMonday": ("Saturday", 3), "FridaySaturdaySundayMonday": ("Friday", 4)}

# --------------------------------------------------------------------------- bijection


def own_parameters(constraint: Any) -> dict[str, Any]:
    """The kind parameters of a constraint as ``schedc parse --json`` shows them, absent ones dropped."""
    return {k: v for k, v in msgspec.to_builtins(constraint).items() if k not in COMMON and v is not None}


def bijection(rendering: Rendering, instance: Instance) -> list[str]:
    """Claims and active constraints correspond one to one with equal parameters."""
    active = {c.id: c for c in instance.constraints if c.active}
    seen = Counter(r.claim.constraint for r in rendering.claims)
    problems = [f"constraint {cid} has {seen[cid]} claims" for cid in active if seen[cid] != 1]
    problems += [f"claim {cid} has no active constraint" for cid in seen if cid not in active]
    for record in rendering.claims:
        c = active.get(record.claim.constraint)
        if c is None:
            continue
        claim = record.claim
        if (claim.kind, claim.hard, claim.weight) != (kind_name(c), c.hard, c.weight):
            problems.append(f"{c.id}: claim modality {claim.kind}/{claim.hard}/{claim.weight} differs")
        if claim.params != own_parameters(c):
            problems.append(f"{c.id}: claim parameters differ from the constraint's")
        if not record.text or record.text[0] not in rendering.text():
            problems.append(f"{c.id}: its rule sentence is not in the rendering")
    return problems


# --------------------------------------------------------------------------- wording

DEONTIC = re.compile(r"\b(must|may|cannot|can never|required|forbidden|not allowed|is allowed)\b", re.I)
EVALUATIVE = re.compile(r"\b(should|penalised|penalty|costs?|preferences?|preferably|charged)\b", re.I)
HARD_ONLY = re.compile(r"\b(must|may never|may not|cannot|can never|forbidden|not allowed|is required|are required)\b"
                       r"|\bno(ne)?\b[^.;]*\bmay\b", re.I)
MINIMUM = re.compile(r"\b(at least|minimum|fewer than|between|from \S+ to)\b", re.I)
MAXIMUM = re.compile(r"\b(at most|maximum|more than|no more than|between|from \S+ to)\b", re.I)
BOUNDED = {"count_bounds", "consecutive_run_bounds", "spread", "stability"}


def wording(rendering: Rendering, family: Family) -> list[str]:
    """Each claim's rule sentence has the claim's modality, bounds and counted set."""
    free = rendering.names.get(family.decision.free, family.decision.free) if family.decision and \
        family.decision.free else None
    problems = []
    for record in rendering.claims:
        claim, sentence = record.claim, record.text[0] if record.text else ""
        where = f"{claim.constraint} ({claim.kind}): {sentence[:100]!r}"
        if claim.hard and not DEONTIC.search(sentence):
            problems.append(f"hard rule without deontic wording: {where}")
        if claim.hard and re.search(r"\b(should|penalised)\b", sentence):
            problems.append(f"hard rule worded as soft: {where}")
        if not claim.hard and HARD_ONLY.search(sentence):
            problems.append(f"soft rule worded as hard: {where}")
        if not claim.hard and not EVALUATIVE.search(sentence) and claim.scored:
            problems.append(f"soft rule without evaluative wording: {where}")
        if not claim.hard and not re.search(rf"(?<!\w){claim.weight}(?!\w)", sentence):
            problems.append(f"soft rule without its weight {claim.weight}: {where}")
        if not claim.hard and not claim.scored and not re.search(r"information|not count|not part|not change",
                                                                  sentence):
            problems.append(f"unscored soft rule not said to be unscored: {where}")
        if claim.kind in BOUNDED:
            problems += _bound_words(claim, sentence, where)
        if claim.kind in ("count_bounds", "consecutive_run_bounds"):
            problems += _counted_words(claim, sentence, free, rendering.names, where)
        if claim.kind == "coverage":
            problems += _coverage_words(claim, sentence, where)
    return problems


def _coverage_words(claim: Any, sentence: str, where: str) -> list[str]:
    """A coverage sentence names only the bounds its rows have: minimums only are never read as an exact
    number ("as many nurses as listed") nor as a maximum, and so on."""
    rows = [(row[3], row[4]) for row in claim.params["requirements"]]
    if not rows:
        return []
    exact = all(lo is not None and lo == hi for lo, hi in rows)
    bare = re.search(r"(?<!at least )(?<!at most )(?<!exactly )\bas many [\w ]+? as listed", sentence)
    if exact:
        ok = re.search(r"\b(exactly|equal|fewer or more|missing or in excess|too few or too many)\b", sentence)
        return [] if ok or bare else [f"exact cover rows not stated as exact: {where}"]
    problems = [f"cover bounds read as an exact number: {where}"] if bare else []
    lows, highs = any(lo is not None for lo, _ in rows), any(hi is not None for _, hi in rows)
    if not highs and re.search(r"\b(at most|in excess|too many|exactly|equal|more \w+ than|maximum)\b", sentence):
        problems.append(f"cover rows with minimums only read as bounded above: {where}")
    if not lows and re.search(r"\b(at least|missing|too few|exactly|equal|fewer \w+ than|minimum)\b", sentence):
        problems.append(f"cover rows with maximums only read as bounded below: {where}")
    if highs and lows and not re.search(r"\b(bounds|fewer or more|missing or in excess|too few or too many)\b",
                                        sentence):
        problems.append(f"cover rows with both bounds not stated as a range: {where}")
    return problems


# --------------------------------------------------------------------------- precedence clauses

ROUTE_WORDS = re.compile(r"first goes to|, then to|Route of|in this order|in route order|along a fixed route")


def relation_clauses(sentence: str, names: dict[str, str]) -> set[tuple[str, str, int, str]]:
    """The timing relations a sentence states, read off its words ("the start of A plus 2 is exactly the end
    of B" → (A, B, 2, "s=e")), as (before, after, delay, relation) in IR names."""
    back = {shown: name for name, shown in names.items()}
    alternatives = "|".join(re.escape(shown) for shown in sorted(back, key=len, reverse=True))
    clause = re.compile(rf"the (start|end) of ({alternatives})(?: (plus|minus) (\d+))? (is exactly|is at or before) "
                        rf"the (start|end) of ({alternatives})")
    out = set()
    for x, a, sign, amount, compare, y, b in clause.findall(sentence):
        delay = 0 if not amount else (int(amount) if sign == "plus" else -int(amount))
        out.add((back[a], back[b], delay, f"{x[0]}{'=' if compare == 'is exactly' else '->'}{y[0]}"))
    return out


def precedences(rendering: Rendering, instance: Instance) -> list[str]:
    """Every timing relation a precedence sentence states is an edge of its claim, with the same points,
    comparison and delay; every edge no other statement can state is stated by it (another relation, a
    negative delay, any edge of a soft rule, and — without precedence statements — an end-to-start edge
    that is not one step of a job to its next); and a job statement that states no edge of its job does
    not describe a route."""
    steps = {a.name: (a.job, a.step) for a in instance.activities}
    listing = any(s.category == "precedences" for s in rendering.statements)
    activities = {a.name: rendering.names.get(a.name, a.name) for a in instance.activities}
    problems = []
    for record in rendering.claims:
        claim = record.claim
        if claim.kind != "precedence_lag":
            continue
        edges = {(a, b, lag, relation) for a, b, lag, relation in claim.params.get("edges", [])}
        read = relation_clauses(record.text[0] if record.text else "", activities)
        problems += [f"{claim.constraint}: states {e} which is not an edge of the claim" for e in sorted(read - edges)]
        for a, b, lag, relation in sorted(edges):
            classic = relation == "e->s" and lag >= 0
            job_a, step_a = steps.get(a, (None, None))
            job_b, step_b = steps.get(b, (None, None))
            along = job_a is not None and job_a == job_b and step_a is not None and step_b == step_a + 1 and lag == 0
            needed = not claim.hard or not classic or not (along or listing)
            if needed and (a, b, lag, relation) not in read:
                problems.append(f"{claim.constraint}: edge {a} {relation}{lag:+d} {b} is not stated by its sentence")
    chains = [{(e[0], e[1]) for e in c.claim().params.get("edges", []) if e[3] == "e->s" and e[2] >= 0}
              for c in instance.constraints if c.active and c.hard and kind_name(c) == "precedence_lag"]
    for s in rendering.statements:
        members = sorted((a.step, a.name) for a in instance.activities if f"jobs:{a.job}" == s.id)
        pairs = {(x[1], y[1]) for x, y in zip(members, members[1:], strict=False)}
        if s.category == "jobs" and len(members) > 1 and ROUTE_WORDS.search(s.text) and \
                not any(pairs <= chain for chain in chains):
            problems.append(f"{s.id}: describes a route no hard rule chains: {s.text[:100]!r}")
    return problems


def _bound_words(claim: Any, sentence: str, where: str) -> list[str]:
    has_min, has_max = "min" in claim.params, "max" in claim.params
    out = []
    if has_min and has_max and claim.params["min"] == claim.params["max"]:
        if not re.search(r"\b(exactly|other than|different number|equal to|more or fewer)\b", sentence):
            out.append(f"exact bound not stated as exact: {where}")
        return out
    if not has_min and MINIMUM.search(sentence):
        out.append(f"mentions a minimum the claim lacks: {where}")
    if not has_max and MAXIMUM.search(sentence):
        out.append(f"mentions a maximum the claim lacks: {where}")
    for key in ("min", "max"):
        value = claim.params.get(key)
        if isinstance(value, int) and not re.search(rf"(?<!\w){value}(?!\w)", sentence):
            out.append(f"bound {key}={value} not printed: {where}")
    return out


def _counted_words(claim: Any, sentence: str, free: str | None, names: dict[str, str], where: str) -> list[str]:
    mode = claim.params.get("values", {}).get("mode", "work")
    found = counted_set(sentence, free)
    if mode == "values":
        shown = [names.get(v, v) for v in claim.params["values"]["values"]]
        return [] if all(s.casefold() in sentence.casefold() for s in shown) else [f"counted values not named: {where}"]
    expected = mode if free is not None else ("free" if mode == "free" else "all")
    if free is None and {found, expected} <= {"work", "all"}:  # without a day-off value every assignment works
        return []
    return [] if found == expected else [f"counted set reads as {found!r}, the claim counts {mode!r}: {where}"]


def counted_set(sentence: str, free: str | None) -> str:
    """What a counting sentence counts, read off its words: working assignments (the day-off value
    excluded), free days, or every assignment (the day-off value included)."""
    if re.search(r"\bassignments? to\b|\bdays? on\b", sentence):
        return "values"
    if re.search(r"\bfree\b|\bdays? off\b", sentence, re.I) and not re.search(r"does not count", sentence):
        return "free"
    if re.search(r"\bworking\b|\bworked\b", sentence, re.I) or (free and f"{free} does not count" in sentence):
        return "work"
    return "all"


# --------------------------------------------------------------------------- surface

GLUED = re.compile(r"[a-z0-9)][.;!?][A-Z]")
PLURAL_AFTER_ONE = re.compile(r"(?<![\w.,-])(?<!and )(?<!or )(?<!, )1 (units|time units|days|periods|lectures|"
                              r"shifts|minutes|hours|weekends|jobs|steps|machines|activities|rooms|students)\b")
TAUTOLOGY = re.compile(r"\(the (\w+(?: \w+)?) are the \1\b|\((its|the) (machines|jobs|activities)\)")


def surface(rendering: Rendering) -> list[str]:
    """One space between sentences, number agreement after 1, no self-explaining role notes."""
    parts = [rendering.background, *(s.text for s in rendering.statements), rendering.response_format]
    out = []
    for text in parts:
        for pattern, what in ((GLUED, "sentences glued"), (PLURAL_AFTER_ONE, "plural after 1"),
                              (TAUTOLOGY, "tautology")):
            found = pattern.search(text)
            if found:
                out.append(f"{what}: {text[max(0, found.start() - 30):found.end() + 30]!r}")
    return out


# --------------------------------------------------------------------------- names and coherence
#
# What a reader needs to copy names right and to trust the setting (issue 27): a role word is part
# of every name of a class or of none; an id is shown in the namespace of the class it belongs to;
# no sentence is said twice; a family without a theme of its own is not given a made-up setting nor
# names that read as tasks, roles or things of some domain; articles agree with the word they precede.


def names_audit(rendering: Rendering, instance: Instance, family: Family, own_theme: bool) -> list[str]:
    """Every check of this section: name forms, namespaces, repeated sentences, setting and names of a
    family without a theme (``own_theme``: whether its family has a theme file), articles."""
    return (name_consistency(rendering, instance, family) + namespaces(rendering, instance, family)
            + repeated_sentences(rendering) + theme_coherence(rendering, instance, family, own_theme)
            + articles(rendering))


def role_word_pattern(word: str) -> re.Pattern[str]:
    """A role word (or its plural) as whole words, any case: ``work order`` in ``Work order Saldsel``."""
    forms = sorted({word, plural_of(word)}, key=len, reverse=True)
    return re.compile(r"(?<![^\W\d_])(?:" + "|".join(re.escape(f) for f in forms) + r")(?![^\W\d_])", re.I)


def plural_of(word: str) -> str:
    """A plain English plural, written here independently of the renderer's."""
    irregular = {"person": "people", "curriculum": "curricula", "staff": "staff"}
    head, _, last = word.rpartition(" ")
    if last in irregular:
        return f"{head} {irregular[last]}".strip()
    if word.endswith("y") and word[-2:-1] not in tuple("aeiou"):
        return word[:-1] + "ies"
    return word + ("es" if word.endswith(("s", "sh", "ch", "x")) else "s")


def named_classes(rendering: Rendering, instance: Instance, family: Family) -> dict[str, list[tuple[str, str]]]:
    """Role → (IR name, display name) of everything the rendering names: jobs, activities without a
    job, resources by kind (unary ones are ``machine``), entities by class, and the values of name
    attributes that are no entity (skills, teachers), by attribute (singular)."""
    names = rendering.names

    def shown(role: str, name: str) -> str:
        return names.get(f"{role}:{name}") or names.get(name, name)

    out: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for job in dict.fromkeys(a.job for a in instance.activities if a.job is not None):
        out["job"].append((job, shown("job", job)))
    for a in instance.activities:
        if a.job is None:
            out["activity"].append((a.name, shown("activity", a.name)))
    for r in instance.resources:
        role = "machine" if r.kind == "unary" else r.kind
        out[role].append((r.name, shown(role, r.name)))
    entities = {e.name for e in instance.entities} | {r.name for r in instance.resources}
    entities |= {a.name for a in instance.activities} | {a.job for a in instance.activities if a.job}
    free = family.decision.free if family.decision else None
    seen: set[tuple[str, str]] = set()
    for e in instance.entities:
        if (e.cls, e.name) not in seen and e.name != free:
            seen.add((e.cls, e.name))
            if (e.cls, e.name) not in {(role, n) for role in ("machine", "renewable", "nonrenewable")
                                       for n, _ in out.get(role, [])}:
                out[e.cls].append((e.name, shown(e.cls, e.name)))
    listed: set[str] = set()  # a value two attributes hold belongs to the one declared first (machine groups
    for cls in family.classes:  # that dfjsp events also mention)
        for decl in cls.attributes:
            if decl.type not in ("name", "names") or family.entity_class(decl.name) is not None:
                continue
            role = decl.name[:-1] if decl.type == "names" and decl.name.endswith("s") else decl.name
            for e in instance.entities:
                value = e.attrs.get(decl.name) if e.cls == cls.name else None
                for v in (() if value is None else value if isinstance(value, tuple) else (value,)):
                    if str(v) not in entities and str(v) not in listed and str(v) != shown(role, str(v)):
                        listed.add(str(v))
                        out[role].append((str(v), shown(role, str(v))))
    return {role: members for role, members in out.items() if members}


def role_words_of(rendering: Rendering, family: Family) -> dict[str, str]:
    """Role → the word the rendering uses for it (the theme's, else the family's, else the role's name)."""
    from schedc.render.themes import load_domains

    words = dict(family.roles)
    domain = next((d for d in load_domains(family.name) if d.id == rendering.theme), None) \
        if rendering.theme else None
    if domain is not None:
        words.update(domain.words)
    resource = words.get("resource", "resource")
    return {"renewable": resource, "nonrenewable": resource, **words}


def name_consistency(rendering: Rendering, instance: Instance, family: Family) -> list[str]:
    """Within a class, every display name carries the class's role word or none does; and no name
    carries the role word of another class (a shift called ``Nurse station`` would read as a nurse)."""
    words = role_words_of(rendering, family)
    classes = named_classes(rendering, instance, family)
    patterns = {role: role_word_pattern(words.get(role, role.replace("_", " "))) for role in classes}
    problems = []
    for role, members in classes.items():
        carrying = [shown for _, shown in members if patterns[role].search(shown)]
        if carrying and len(carrying) < len(members):
            bare = next(shown for _, shown in members if not patterns[role].search(shown))
            problems.append(f"{role}: {len(carrying)} of {len(members)} names carry the role word "
                            f"{words.get(role, role)!r} ({carrying[0]!r} next to {bare!r})")
        for other, pattern in patterns.items():
            if other == role or words.get(other, other) == words.get(role, role):
                continue
            found = next((shown for _, shown in members if pattern.search(shown)), None)
            if found is not None:
                problems.append(f"{role} {found!r} carries the role word of {other} {words.get(other, other)!r}")
    return problems


def namespaces(rendering: Rendering, instance: Instance, family: Family) -> list[str]:
    """An entity's own statement shows it in its class's name, and the entities its attributes name
    (a nurse's contract) in theirs: INRC contract ``3`` is not employee ``3``. Rule sentences that
    select agents by an attribute (``with contract A``) name the value in the attribute's class."""
    names = rendering.names

    def shown(role: str, name: str) -> str:
        return names.get(f"{role}:{name}") or names.get(name, name)

    entities = {(e.cls, e.name): e for e in instance.entities}
    problems = []
    for s in rendering.statements:
        cls, _, name = s.id.partition(":")
        entity = entities.get((cls, name))
        if entity is None:
            continue
        if not _mentions(s.text, shown(cls, name)):
            problems.append(f"statement {s.id} does not show its {cls} as {shown(cls, name)!r}: {s.text[:90]!r}")
        named = {shown(attr, str(v)) for attr, value in entity.attrs.items()
                 for v in (value if isinstance(value, tuple) else (value,))}
        for key, other in names.items():  # the same id in another class: that name has no place here
            role, _, member = key.partition(":")
            if member == name and role != cls and other not in named and other != shown(cls, name) \
                    and _mentions(s.text, other):
                problems.append(f"statement {s.id} shows its {cls} {name} as the {role} {other!r}: {s.text[:90]!r}")
        for attr, value in entity.attrs.items():
            if (attr, str(value)) in entities and not _mentions(s.text, shown(attr, str(value))):
                problems.append(f"statement {s.id} does not show its {attr} {value} as {shown(attr, str(value))!r}")
    for record in rendering.claims:
        agents = record.claim.params.get("agents")
        for attr, value in (agents.get("where", ()) if isinstance(agents, dict) else ()):
            if family.entity_class(attr) is not None and record.text and \
                    not _mentions(record.text[0], shown(attr, value)):
                problems.append(f"{record.claim.constraint}: {attr} {value} not shown as {shown(attr, value)!r}")
    return problems


def _mentions(text: str, name: str) -> bool:
    return re.search(r"(?<!\w)" + re.escape(name) + r"(?!\w)", text) is not None


SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def repeated_sentences(rendering: Rendering) -> list[str]:
    """No sentence is said twice in a row (within the background or a statement, or across the end
    of one statement and the start of the next), and no two statements of a category are the same."""
    problems = []
    parts = [("background", rendering.background), *((s.id, s.text) for s in rendering.statements)]
    previous = ""
    for where, text in parts:
        sentences = [x.strip() for x in SENTENCE_END.split(text) if x.strip()]
        for before, after in zip([previous, *sentences], sentences, strict=False):
            if before == after and len(after.split()) >= 4:
                problems.append(f"{where} says twice in a row: {after[:90]!r}")
        previous = sentences[-1] if sentences else previous
    texts = Counter((s.category, s.text) for s in rendering.statements if s.text)
    problems += [f"two {cat} statements say {text[:90]!r}" for (cat, text), n in texts.items() if n > 1]
    return problems


GENERIC_SETTING = re.compile(r"\bsetting is\b|\bSetting:", re.I)


def theme_coherence(rendering: Rendering, instance: Instance, family: Family, own_theme: bool) -> list[str]:
    """A family without a theme of its own (a user's) is not placed in a setting it never named, and
    the names the generic pools give it read as names, not as tasks (``Cleaning``), roles
    (``Engineers``) or things of another domain (``Lathe``): none shares a word with a built-in
    theme's pools or role words, and none is a word ending in -ing."""
    if own_theme or rendering.theme is None:
        return []
    from schedc.render.themes import load_domains

    problems = []
    domain = next((d for d in load_domains(family.name) if d.id == rendering.theme), None)
    if domain is not None and domain.setting and domain.setting in rendering.text():
        problems.append(f"family {family.name} without a theme is placed in {domain.setting!r}")
    if GENERIC_SETTING.search(rendering.user_prompt()):
        problems.append(f"family {family.name} without a theme gets a setting sentence")
    lexicon = domain_lexicon()
    canonical = {n for members in named_classes(_canonical(rendering, instance, family), instance, family).values()
                 for _, n in members}
    for role, members in named_classes(rendering, instance, family).items():
        for _, shown in members:
            if shown in canonical:
                continue
            found = [w for w in re.findall(r"[^\W\d_]+", shown.casefold()) if w in lexicon or w.endswith("ing")]
            if found:
                problems.append(f"{role} {shown!r} reads as a domain word ({found[0]!r})")
    return problems


def _canonical(rendering: Rendering, instance: Instance, family: Family) -> Rendering:
    from schedc.ir.names import canonical_names

    return msgspec.structs.replace(rendering, names=canonical_names(instance, family))


_LEXICON: set[str] = set()


def domain_lexicon() -> set[str]:
    """Every word of the built-in themes' pools and role words and of the built-in families' role words:
    the words that belong to some domain."""
    if not _LEXICON:
        import tomllib

        from schedc.lang.resources import data_dir

        def walk(value: Any) -> None:
            if isinstance(value, str):
                _LEXICON.update(re.findall(r"[^\W\d_]+", value.casefold()))
            elif isinstance(value, list | tuple):
                for v in value:
                    walk(v)
            elif isinstance(value, dict):
                for v in value.values():
                    walk(v)

        for path in sorted((data_dir("templates") / "themes").glob("*.toml")):
            if path.stem != "generic":
                for d in tomllib.loads(path.read_text(encoding="utf-8")).get("domain", []):
                    walk(d.get("pools", {}))
                    walk(d.get("words", {}))
        for path in sorted(data_dir("specs").glob("*.sched")):
            roles = re.search(r"roles \[([^\]]*)\]", path.read_text(encoding="utf-8"))
            if roles:
                walk(re.findall(r'"([^"]+)"', roles.group(1)))
        _LEXICON.difference_update({"a", "an", "and", "of", "the", "de", "in", "on", "for", "with", "to", "at"})
    return _LEXICON


#: Words after which "a" is right although they begin with a vowel letter, and "an" although not.
A_BEFORE_VOWEL = re.compile(r"(?:uni|use|usu|uti|ure|eu|one\b|once)", re.I)
AN_BEFORE_CONSONANT = re.compile(r"(?:hour|honest|honou?r|heir)", re.I)
NOT_A_NOUN = frozenset({"or", "and", "to", "of", "in", "on", "at", "is", "b", "and/or"})
ARTICLE = re.compile(r"(?:^|(?<=[.!?:;] )|(?<=\n))(A|An)\s+([^\W\d_][\w-]*)|(?<![\w-])(a|an)\s+([^\W\d_][\w-]*)")


def articles(rendering: Rendering) -> list[str]:
    """"a"/"an" agree with the sound of the next word (by its spelling, with the usual exceptions):
    no "a oven", no "an batch"."""
    problems = []
    for part in (rendering.system, rendering.user_prompt()):
        for m in ARTICLE.finditer(part):
            article, word = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
            if word.lower() in NOT_A_NOUN:  # "at a or at b": a letter standing for a time, not an article
                continue
            vowel = word[:1].lower() in "aeiou"
            wants_an = (vowel and not A_BEFORE_VOWEL.match(word)) or AN_BEFORE_CONSONANT.match(word) is not None
            if word.isupper() and len(word) > 1:  # an acronym is read letter by letter: "an SUV", "a CNC router"
                wants_an = word[0] in "AEFHILMNORSX"
            if wants_an != (article.lower() == "an"):
                problems.append(f"{article!r} before {word!r}: {part[max(0, m.start() - 30):m.end() + 20]!r}")
    return problems


# --------------------------------------------------------------------------- contradictions


def contradictions(rendering: Rendering, instance: Instance, family: Family) -> list[str]:
    """Pairs of sentences that bound the same counted set of the same agents incompatibly.

    An "exactly one value per day, the day off included" sentence fixes every agent's count of
    all assignments to the number of days; a count sentence that reads as counting all
    assignments must then allow that number. Two count sentences over the same set and agents
    must leave a common value.
    """
    free = rendering.names.get(family.decision.free, "") if family.decision and family.decision.free else None
    cal = instance.calendar
    slots = (cal.days * cal.periods_per_day) if cal else 0
    exact_all = [r for r in rendering.claims if r.claim.kind == "one_per_slot" and r.claim.params.get("exactly")
                 and r.claim.params.get("per", "agent") == "agent" and free]
    counts = defaultdict(list)
    for r in rendering.claims:
        if r.claim.kind != "count_bounds" or not r.text:
            continue
        lo, hi = r.claim.params.get("min"), r.claim.params.get("max")
        if isinstance(lo, dict) or isinstance(hi, dict):
            continue
        counted = counted_set(r.text[0], free)
        counts[(counted, repr(r.claim.params.get("agents")))].append((lo, hi, r))
        if counted == "all" and exact_all and not ((lo is None or lo <= slots) and (hi is None or slots <= hi)):
            problems = [f"{exact_all[0].claim.constraint} fixes {slots} assignments per agent, but "
                        f"{r.claim.constraint} reads {r.text[0][:80]!r}"]
            return problems
    out = []
    for group in counts.values():
        lows = [lo for lo, _, _ in group if lo is not None]
        highs = [hi for _, hi, _ in group if hi is not None]
        if lows and highs and max(lows) > min(highs):
            out.append(f"count sentences leave no common value: {[r.claim.constraint for *_, r in group]}")
    return out


# --------------------------------------------------------------------------- the claim interpreter


class World:
    """The instance data a claim's sentences refer to (durations, calendar, attributes), indexed."""

    def __init__(self, instance: Instance, family: Family):
        self.instance = instance
        self.family = family
        cal = instance.calendar
        self.days = cal.days if cal else 0
        self.periods = cal.periods_per_day if cal else 1
        self.weekdays = [cal.weekday(d) if cal else None for d in range(self.days)]
        decision = family.decision
        self.agent_cls = decision.agent if decision else ""
        self.free = decision.free if decision else None
        self.attrs: dict[tuple[str, str], dict[str, Any]] = {(e.cls, e.name): e.attrs for e in instance.entities}
        self.classes: dict[str, list[str]] = defaultdict(list)
        for e in instance.entities:
            self.classes[e.cls].append(e.name)
        self.activities = {a.name: a for a in instance.activities}
        self.resources = {r.name: r for r in instance.resources}

    def chosen(self, sel: dict[str, Any]) -> list[str]:
        """Who a claim's scope names: the listed names, or every entity whose attributes match."""
        members = self.classes.get(sel["cls"], [])
        if sel.get("names"):
            return [n for n in sel["names"] if n in members]
        where = sel.get("where", ())
        return [n for n in members if all(str(self.attrs[(sel["cls"], n)].get(k)) == v for k, v in where)]

    def bound(self, value: Any, agent: str) -> int | None:
        if isinstance(value, dict):
            found = self.attrs.get((self.agent_cls, agent), {}).get(value["attr"])
            return found if isinstance(found, int) else None
        return value

    def weekends(self, definition: str | None) -> list[list[int]]:
        """Weekend blocks: starting on each first weekend day inside the schedule, cut at its end."""
        first, length = WEEKENDS[definition or "SaturdaySunday"]
        return [list(range(d, min(d + length, self.days))) for d in range(self.days) if self.weekdays[d] == first]


class Schedule:
    """One schedule as the claims speak of it: who holds what when; when each activity runs."""

    def __init__(self, world: World, solution: Solution):
        self.world = world
        self.held: dict[str, dict[tuple[int, int], list[str]]] = defaultdict(lambda: defaultdict(list))
        for a in solution.assignments:
            self.held[a.agent][(a.day, a.period)].append(a.value)
        self.start, self.end, self.mode = {}, {}, {}
        for name, s in solution.starts.items():
            activity = world.activities.get(name)
            m = solution.modes.get(name, 1)
            if activity is not None and 1 <= m <= len(activity.modes):
                self.start[name], self.mode[name] = s, m
                self.end[name] = _paused_end(world, activity.modes[m - 1], s)
        self.workers = solution.workers
        self.bad_modes = sum(1 for n, m in solution.modes.items() if n in world.activities and
                             not 1 <= m <= len(world.activities[n].modes))

    def on_day(self, agent: str, day: int) -> list[str]:
        return [v for p in range(self.world.periods) for v in self.held[agent].get((day, p), [])]

    def works(self, values: list[str]) -> bool:
        return any(v != self.world.free for v in values)

    def matches(self, flt: dict[str, Any], values: list[str]) -> bool:
        if flt["mode"] == "work":
            return self.works(values)
        if flt["mode"] == "free":
            return not self.works(values)
        return any(v in flt["values"] for v in values)

    def uses(self, activity: str) -> dict[str, int]:
        mode = self.world.activities[activity].modes[self.mode[activity] - 1]
        return {u.resource: u.amount for u in mode.uses}


def _paused_end(world: World, mode: Any, start: int) -> int:
    """The end of a mode, its work stopping over the breaks of pausable downtime claims on its resources."""
    used = {u.resource for u in mode.uses if u.amount}
    breaks = sorted((lo, hi) for c in world.instance.constraints if c.active and kind_name(c) == "resource_downtime"
                    and c.claim().params.get("pausable") for r, lo, hi, _l in c.claim().params["windows"] if r in used)
    t, left = start, mode.duration
    for lo, hi in breaks:  # overlapping breaks of two resources: a later one may start inside an earlier one
        if left and lo < t + left and hi > t:
            left -= max(0, lo - t)
            t = max(t, hi)
    return t + left


def _runs(flags: list[bool]) -> list[int]:
    lengths, current = [], 0
    for flag in [*flags, False]:
        if flag:
            current += 1
        elif current:
            lengths.append(current)
            current = 0
    return lengths


def _count_bounds(p: dict[str, Any], s: Schedule) -> int:
    total = 0
    w = s.world
    for agent in w.chosen(p["agents"]):
        flt = p.get("values", {"mode": "work"})
        if flt["mode"] == "free":
            count = sum(not s.works(s.held[agent].get((d, q), [])) for d in range(w.days) for q in range(w.periods))
        else:
            count = sum(s.matches(flt, [v]) for vals in s.held[agent].values() for v in vals)
        lo, hi = w.bound(p.get("min"), agent), w.bound(p.get("max"), agent)
        total += max(0, (lo or 0) - count) + (max(0, count - hi) if hi is not None else 0)
    return total


def _runs_bounds(p: dict[str, Any], s: Schedule) -> int:
    w = s.world
    flt = p.get("values", {"mode": "work"})
    over = p.get("over", {"over": "days"})
    total = 0
    for agent in w.chosen(p["agents"]):
        blocks = [[d] for d in range(w.days)] if over["over"] == "days" else w.weekends(over.get("weekend"))
        combine = all if flt["mode"] == "free" else any
        flags = [combine(s.matches(flt, s.on_day(agent, d)) for d in block) for block in blocks]
        for length in _runs(flags):
            total += max(0, length - p["max"]) if "max" in p else 0
            total += max(0, p["min"] - length) if "min" in p else 0
    return total


def _one_per_slot(p: dict[str, Any], s: Schedule) -> int:
    w = s.world
    total = 0
    if p.get("per", "agent") == "value":
        holders = Counter((v, slot) for cells in s.held.values() for slot, vals in cells.items() for v in vals)
        return sum(n - 1 for n in holders.values() if n > 1)
    for agent in w.classes.get(w.agent_cls, []):
        for d in range(w.days):
            for q in range(w.periods):
                n = len(s.held[agent].get((d, q), []))
                total += max(0, n - 1) + (1 if p.get("exactly") and n == 0 else 0)
    return total


def _coverage(p: dict[str, Any], s: Schedule) -> int:
    staff = Counter((slot, v) for cells in s.held.values() for slot, vals in cells.items() for v in vals)
    total, listed = 0, set()
    for day, period, value, lo, hi in p["requirements"]:
        slot = (day, period or 0)
        listed.add((slot, value))
        n = staff[(slot, value)]
        total += max(0, (lo or 0) - n) + (max(0, n - hi) if hi is not None else 0)
    if p.get("complete"):
        total += sum(n for key, n in staff.items() if key not in listed)
    return total


def _unavailability(p: dict[str, Any], s: Schedule) -> int:
    """Assignments in a forbidden slot, each once (a period may be listed alone and within its whole day)."""
    forbidden = {(agent, day, q) for agent, day, period in p["slots"]
                 for q in (range(s.world.periods) if period is None else [period])}
    return sum(len(values) for agent, cells in s.held.items() for (day, q), values in cells.items()
               if (agent, day, q) in forbidden)


def _slot_conflict(p: dict[str, Any], s: Schedule) -> int:
    w = s.world
    agents = w.classes.get(w.agent_cls, [])
    pairs: set[tuple[str, str]] = set()
    if "groups" in p:
        for g in w.classes.get(p["groups"], []):
            members = [m for m in w.attrs[(p["groups"], g)].get(p.get("members", "members"), ()) if m in agents]
            pairs |= {(a, b) for a in members for b in members if a < b}
    if "by" in p:
        key = {a: w.attrs[(w.agent_cls, a)].get(p["by"]) for a in agents}
        pairs |= {(a, b) for a in agents for b in agents if a < b and key[a] is not None and key[a] == key[b]}
    busy = {a: {slot for slot, vals in s.held[a].items() if vals} for a in agents}
    return sum(len(busy[a] & busy[b]) for a, b in pairs)


def _pattern(p: dict[str, Any], s: Schedule) -> int:
    w = s.world
    size = len(p["pattern"])
    total = 0
    for agent in w.chosen(p["agents"]):
        for t in range(w.days - size + 1):
            if "anchor" in p and w.weekdays[t] != p["anchor"]:
                continue
            total += all(_entry(e, s.on_day(agent, t + i), s) for i, e in enumerate(p["pattern"]))
    return total


def _entry(entry: str, values: list[str], s: Schedule) -> bool:
    if entry == "work":
        return s.works(values)
    if entry == "free":
        return not s.works(values)
    return entry in values


def _window(p: dict[str, Any], s: Schedule) -> int:
    w = s.world
    costs = dict(map(tuple, p.get("table", [])))
    total = 0
    for agent in w.chosen(p["agents"]):
        for block in w.weekends(p["windows"].get("weekend")):
            if len(block) < p.get("min_length", 2):
                continue
            days = [s.on_day(agent, d) for d in block]
            if p.get("cost", "table") == "table":
                total += costs.get("".join("W" if s.works(d) else "F" for d in days), 0)
            elif all(s.works(d) for d in days):
                used = Counter(v for d in days for v in set(d) if v != w.free)
                total += sum(len(days) - n for n in used.values())
    return total


def _assignment_cost(p: dict[str, Any], s: Schedule) -> int:
    total = 0
    for agent, day, value, cost, when in p["entries"]:
        for d in range(s.world.days) if day < 0 else [day]:
            values = s.on_day(agent, d)
            held = s.works(values) if value == "*" else value in values
            total += cost if held == (when == "assigned") else 0
    return total


def _capacity(p: dict[str, Any], s: Schedule) -> int:
    w = s.world
    value_cls = w.family.decision.value if w.family.decision else ""
    total = 0
    for agent, cells in s.held.items():
        demand = w.attrs.get((w.agent_cls, agent), {}).get(p["demand"], 0)
        for vals in cells.values():
            for v in vals:
                total += max(0, demand - w.attrs.get((value_cls, v), {}).get(p["capacity"], 0))
    return total


def _spread(p: dict[str, Any], s: Schedule) -> int:
    """Days with an assignment of each selected agent, or of any member of each selected group."""
    w = s.world
    cls = p["agents"]["cls"]
    total = 0
    for name in w.chosen(p["agents"]):
        members = [name] if cls == w.agent_cls else w.attrs[(cls, name)].get(p.get("members", "members"), ())
        days = {d for m in members for (d, _), vals in s.held[m].items() if vals}
        low = p.get("min")
        lo = (w.attrs[(cls, name)].get(low["attr"]) if isinstance(low, dict) else low) or 0
        total += max(0, lo - len(days))
    return total


def _stability(p: dict[str, Any], s: Schedule) -> int:
    w = s.world
    return sum(max(0, len({v for vals in s.held[a].values() for v in vals}) - p.get("max", 1))
               for a in w.chosen(p["agents"]))


def _compactness(p: dict[str, Any], s: Schedule) -> int:
    w = s.world
    total = 0
    for g in w.classes.get(p["groups"], []):
        members = w.attrs[(p["groups"], g)].get(p.get("members", "members"), ())
        for d in range(w.days):
            load = [sum(1 for m in members if s.held[m].get((d, q))) for q in range(w.periods)]
            for q, n in enumerate(load):
                alone = (q == 0 or load[q - 1] == 0) and (q == w.periods - 1 or load[q + 1] == 0)
                total += n if n and alone else 0
    return total


def _skills_of(w: World, cls: str, name: str, attr: str) -> set[str]:
    return set(w.attrs.get((cls, name), {}).get(attr) or ())


def _skill_eligibility(p: dict[str, Any], s: Schedule) -> int:
    """Assignments of a selected agent to a value listing a skill missing from the agent's list, each once."""
    w = s.world
    value_cls = w.family.decision.value if w.family.decision else ""
    total = 0
    for agent in w.chosen(p["agents"]):
        has = _skills_of(w, w.agent_cls, agent, p["skills"])
        for vals in s.held[agent].values():
            total += sum(not _skills_of(w, value_cls, v, p["requires"]) <= has for v in set(vals))
    return total


def _skill_demand(p: dict[str, Any], s: Schedule) -> int:
    """Per row: the agents listing the skill who hold the value in the slot (every period of a day row)."""
    w = s.world
    total = 0
    for day, period, value, skill, lo, hi in p["needs"]:
        periods = range(w.periods) if period is None else [period]
        n = sum(1 for a in w.classes.get(w.agent_cls, []) if skill in _skills_of(w, w.agent_cls, a, p["skills"])
                for q in periods if value in s.held[a].get((day, q), []))
        total += max(0, (lo or 0) - n) + (max(0, n - hi) if hi is not None else 0)
    return total


def _precedence(p: dict[str, Any], s: Schedule) -> int:
    broken = 0
    for a, b, lag, relation in p["edges"]:
        if a in s.end and b in s.start:
            x = (s.start if relation[0] == "s" else s.end)[a] + lag
            y = (s.start if relation[-1] == "s" else s.end)[b]
            broken += int(x != y if "=" in relation else x > y)
    return broken


def _scope(p: dict[str, Any], w: World, kind: str) -> list[str]:
    """The resources a claim names: all of a kind, or the listed ones."""
    scope = p.get("resources", "all")
    return [r for r, res in w.resources.items() if res.kind == kind] if scope == "all" else list(scope)


def _unary(p: dict[str, Any], s: Schedule) -> int:
    total = 0
    for r in _scope(p, s.world, "unary"):
        on = [a for a in s.start if r in s.uses(a) and s.end[a] > s.start[a]]
        total += sum(1 for i, a in enumerate(on) for b in on[i + 1:]
                     if s.start[a] < s.end[b] and s.start[b] < s.end[a])
    return total


def _cumulative(p: dict[str, Any], s: Schedule) -> int:
    w = s.world
    total = 0
    for r in _scope(p, w, "renewable"):
        load: Counter[int] = Counter()
        for a in s.start:
            for t in range(s.start[a], s.end[a]):
                load[t] += s.uses(a).get(r, 0)
        total += sum(max(0, n - w.resources[r].capacity) for n in load.values())
    return total


def _budget(p: dict[str, Any], s: Schedule) -> int:
    w = s.world
    return sum(max(0, sum(s.uses(a).get(r, 0) for a in s.start) - w.resources[r].capacity)
               for r in _scope(p, w, "nonrenewable"))


def _members(target: str, w: World) -> list[str]:
    return [a.name for a in w.instance.activities if target in (a.name, a.job)]


def _time_window(p: dict[str, Any], s: Schedule) -> int:
    total = 0
    for target, release, deadline, latest_start, earliest_end, _due, _weight in p["windows"]:
        for a in _members(target, s.world):
            if a in s.start:
                total += max(0, release - s.start[a]) + (max(0, s.end[a] - deadline) if deadline is not None else 0)
                total += max(0, s.start[a] - latest_start) if latest_start is not None else 0
                total += max(0, earliest_end - s.end[a]) if earliest_end is not None else 0
    return total


def _setup_times(p: dict[str, Any], s: Schedule) -> int:
    """The shortfall of each consecutive pair on a machine against its setup time."""
    total = 0
    need = _setup_need(p["setups"], s.world)
    for resource in dict.fromkeys(row[0] for row in p["setups"]):
        order = sorted((a for a in s.start if resource in s.uses(a) and s.end[a] > s.start[a]),
                       key=lambda a: (s.start[a], s.end[a], a))
        for a, b in zip(order, order[1:], strict=False):
            total += max(0, s.end[a] + need.get((resource, a, b), 0) - s.start[b])
    return total


def _setup_need(rows: list[Any], world: World) -> dict[tuple[str, str, str], int]:
    """The setup of each ordered pair of activities a resource may run, as the claimed rows state it: the
    pair's own row, else the row of the two jobs, else the resource's ``* *`` row."""
    given = {(r, a, b): t for r, a, b, t in rows}
    job = {a.name: a.job for a in world.instance.activities}
    out = {}
    for resource in dict.fromkeys(row[0] for row in rows):
        users = [a.name for a in world.instance.activities
                 if any(u.resource == resource and u.amount for mode in a.modes for u in mode.uses)]
        for a in users:
            for b in users:
                found = [given[key] for key in ((resource, a, b), (resource, job[a], job[b]), (resource, "*", "*"))
                         if key in given]
                if a != b and found:
                    out[(resource, a, b)] = found[0]
    return out


def _all_setups(world: World) -> dict[tuple[str, str, str], int]:
    """The setups of every active setup_times claim, the largest kept where several rules state one."""
    out: dict[tuple[str, str, str], int] = {}
    for c in world.instance.constraints:
        if c.active and kind_name(c) == "setup_times":
            for key, time in _setup_need(c.claim().params["setups"], world).items():
                out[key] = max(out.get(key, 0), time)
    return out


def _order(s: Schedule, resource: str) -> list[str]:
    return sorted((a for a in s.start if resource in s.uses(a) and s.end[a] > s.start[a]),
                  key=lambda a: (s.start[a], s.end[a], a))


def _no_idle(p: dict[str, Any], s: Schedule) -> int:
    """Idle time between consecutive operations, beyond the setup time of the pair."""
    setups = _all_setups(s.world)
    total = 0
    for resource in _scope(p, s.world, "unary"):
        order = _order(s, resource)
        for a, b in zip(order, order[1:], strict=False):
            total += max(0, s.start[b] - s.end[a] - setups.get((resource, a, b), 0))
    return total


def _unary_of(s: Schedule, a: str) -> set[str]:
    return {r for r, q in s.uses(a).items() if q and s.world.resources[r].kind == "unary"}


def _consecutive(p: dict[str, Any], s: Schedule) -> int:
    total = 0
    for a, b in p["pairs"]:
        if a in s.start and b in s.start:
            for resource in _unary_of(s, a) & _unary_of(s, b):
                order = _order(s, resource)
                total += int(not (a in order and b in order and order.index(b) == order.index(a) + 1
                                  and s.end[a] <= s.start[b]))
    return total


def _same_sequence(p: dict[str, Any], s: Schedule) -> int:
    """Two pairs whose order on one resource of the scope differs from their partners' on the next."""
    scope = _scope(p, s.world, "unary")
    total = 0
    for first, second in zip(scope, scope[1:], strict=False):
        if p.get("pairs"):
            pairing = [tuple(row) for row in p["pairs"]]
        else:  # the operations of one job on the two machines
            job_of = {r: {a.job: a.name for a in s.world.instance.activities
                          if a.job is not None and any(u.resource == r and u.amount for m in a.modes for u in m.uses)}
                      for r in (first, second)}
            pairing = [(job_of[first][j], job_of[second][j]) for j in job_of[first] if j in job_of[second]]
        on_a, on_b = _order(s, first), _order(s, second)
        kept = [(on_a.index(a), on_b.index(b)) for a, b in pairing if a in on_a and b in on_b]
        total += sum(1 for x in kept for y in kept if x[0] < y[0] and x[1] > y[1])
    return total


def _ties(p: dict[str, Any], s: Schedule) -> int:
    total = 0
    for rule, a, b in p["ties"]:
        if a in s.start and b in s.start:
            ua, ub = _unary_of(s, a), _unary_of(s, b)
            total += int(ua != ub if rule == "same" else bool(ua & ub))
    return total


def _optional(p: dict[str, Any], s: Schedule) -> int:
    """How many activities of each group would have to be added or left out to keep its rule."""
    total = 0
    for rule, members in p["selections"]:
        k, n = sum(1 for a in members if a in s.start), len(members)
        total += {"optional": 0, "all_or_none": min(k, n - k), "at_least_one": int(k == 0),
                  "exactly_one": abs(k - 1)}[rule]
    return total


def _downtime(p: dict[str, Any], s: Schedule) -> int:
    total = 0
    if p.get("pausable"):  # breaks: only a start inside one is a violation (its time to the break's end)
        for resource, lo, hi, _label in p["windows"]:
            total += sum(hi - s.start[a] for a in s.start if resource in s.uses(a) and s.end[a] > s.start[a]
                         and lo <= s.start[a] < hi)
        return total
    for resource, lo, hi, _label in p["windows"]:
        for a in s.start:
            if resource in s.uses(a) and s.end[a] > s.start[a]:
                total += max(0, min(s.end[a], hi) - max(s.start[a], lo))
    return total


def _tardiness(p: dict[str, Any], s: Schedule, hard: bool) -> int:
    total = 0
    for target, due, weight in p["due_dates"]:
        ends = [s.end[a] for a in _members(target, s.world) if a in s.end]
        late = max(0, max(ends, default=0) - due)
        total += late if hard else weight * late
    return total


def _objective_bound(p: dict[str, Any], s: Schedule) -> int:
    """The excess of the bounded measure: the latest end, or the weighted penalties of the soft claims."""
    penalty = sum(c.weight * interpret(c.claim(), s) for c in s.world.instance.constraints if c.active and not c.hard
                  and kind_name(c) != "objective_bound")
    if p["measure"] == "makespan":
        value = max(s.end.values(), default=0)
    elif p["measure"] == "penalty":
        value = penalty
    else:
        objective = s.world.instance.objective
        terms = [(t.weight, t.measure) for t in objective.terms] if objective.measure == "sum" \
            else [(1, objective.measure)]
        if any(m == "makespan" for _, m in terms) and _incomplete(s):
            return 0  # a schedule that leaves out a required activity has no makespan: no objective to bound
        value = sum(w * _measure(str(m), s, penalty) for w, m in terms)
    return max(0, value - p["max"])


def _incomplete(s: Schedule) -> bool:
    """Whether an activity that the optional claims do not name is not scheduled."""
    optional = {a for c in s.world.instance.constraints if c.active and kind_name(c) == "optional"
                for _rule, members in c.claim().params["selections"] for a in members}
    return any(name not in s.start and name not in optional for name in s.world.activities)


def _measure(measure: str, s: Schedule, penalty: int) -> int:
    """One objective measure of a schedule, from the time_window rows (due=, weight=) and setup claims."""
    if measure == "makespan":
        return max(s.end.values(), default=0)
    if measure == "penalty":
        return penalty
    if measure == "setup_time":
        setups = _all_setups(s.world)
        return sum(setups.get((r, a, b), 0) for r in {k[0] for k in setups}
                   for a, b in zip(_order(s, r), _order(s, r)[1:], strict=False))
    rows = {w[0]: w for c in s.world.instance.constraints if c.active and kind_name(c) == "time_window"
            for w in c.claim().params["windows"]}
    # flow time counts from a required release date only, as the measure's words say
    releases: dict[str, int] = {}
    for c in s.world.instance.constraints:
        if c.active and c.hard and kind_name(c) == "time_window":
            for w in c.claim().params["windows"]:
                releases[w[0]] = max(releases.get(w[0], 0), w[1])
    jobs = {a.job or a.name for a in s.world.instance.activities}
    values = []
    for j in jobs:
        ends = [s.end[a] for a in _members(j, s.world) if a in s.end]
        if not ends:
            continue
        row = rows.get(j, [j, 0, None, None, None, None, None])
        c, due, weight = max(ends), row[5], 1 if row[6] is None else row[6]
        if measure in ("completion", "flow_time"):
            values.append(weight * (c - (releases.get(j, 0) if measure == "flow_time" else 0)))
        elif due is not None:
            values.append({"tardy_jobs": weight * (c > due), "tardiness": weight * max(0, c - due),
                           "earliness": weight * max(0, due - c), "max_tardiness": max(0, c - due),
                           "max_lateness": c - due}[measure])
    return max(values, default=0) if measure.startswith("max_") else sum(values)


def _skill_requirements(p: dict[str, Any], s: Schedule) -> int:
    """Units no team member fills (the most units any one-skill-per-member assignment fills, by brute force),
    plus the time units by which two activities of one worker overlap, pair by pair."""
    w = s.world
    staff = w.chosen(p["workers"])
    teams = s.workers
    total = 0
    rows: dict[str, list[str]] = defaultdict(list)
    for activity, skill, count in p["needs"]:
        rows[activity] += [skill] * count
    for activity, units in rows.items():
        if activity not in s.start:
            continue
        team = [m for m in dict.fromkeys(teams.get(activity, ())) if m in staff]
        has = {m: set(w.attrs[(p["workers"]["cls"], m)].get(p["skills"], ()) or ()) for m in team}

        def best(k: int, free: frozenset[str], units: list[str] = units, has: dict[str, set[str]] = has) -> int:
            if k == len(units):
                return 0
            skip = best(k + 1, free)
            return max([skip, *(1 + best(k + 1, free - {m}) for m in free if units[k] in has[m])])

        total += len(units) - best(0, frozenset(team))
    for worker in staff:
        on = [a for a in s.start if worker in teams.get(a, ()) and s.end[a] > s.start[a]]
        total += sum(max(0, min(s.end[a], s.end[b]) - max(s.start[a], s.start[b]))
                     for i, a in enumerate(on) for b in on[i + 1:])
    return total


def _busy(s: Schedule, agent: str) -> set[tuple[int, int]]:
    return {slot for slot, vals in s.held[agent].items() if vals}


def _spacing(p: dict[str, Any], s: Schedule) -> int:
    """Shared-group weight of every pair of busy slots of two agents that are close (row: adjacent periods of
    a day; day: same day, not adjacent; gap: 1 to gap periods apart in time order)."""
    w = s.world
    agents = set(w.classes.get(w.agent_cls, []))
    weight: Counter[tuple[str, str]] = Counter()
    for g in w.classes.get(p["groups"], []):
        attrs = w.attrs[(p["groups"], g)]
        members = sorted({m for m in attrs.get(p.get("members", "members"), ()) if m in agents})
        for i, a in enumerate(members):
            for b in members[i + 1:]:
                weight[(a, b)] += attrs.get(p["size"], 1) if "size" in p else 1
    within, gap, total = p.get("within", "row"), p.get("gap", 1), 0
    short = dict(map(tuple, p.get("lengths", [])))
    start = [sum(short.get(e, w.periods) for e in range(d)) for d in range(w.days + 1)]  # periods before day d
    for (a, b), n in weight.items():
        for d1, q1 in _busy(s, a):
            for d2, q2 in _busy(s, b):
                apart = abs(start[d1] + q1 - start[d2] - q2)
                close = {"row": d1 == d2 and apart == 1, "day": d1 == d2 and apart > 1, "gap": 0 < apart <= gap}
                total += n if close[within] else 0
    return total


def _slot_order(p: dict[str, Any], s: Schedule) -> int:
    """Rows whose relation fails between the busy slots (in time order) of its two agents."""
    def times(agent: str) -> set[int]:
        return {d * s.world.periods + q for d, q in _busy(s, agent)}
    broken = 0
    for first, relation, second in p.get("rows", []):
        ta, tb = times(first), times(second)
        after = not ta or not tb or min(ta) > max(tb)
        broken += not {"after": after, "exclusion": not ta & tb, "coincidence": ta == tb}[relation]
    return broken


def _cells_held(s: Schedule) -> dict[tuple[int, int, str], list[str]]:
    out: dict[tuple[int, int, str], list[str]] = defaultdict(list)
    for agent, cells in s.held.items():
        for (d, q), vals in cells.items():
            for v in vals:
                out[(d, q, v)].append(agent)
    return out


def _shared_capacity(p: dict[str, Any], s: Schedule) -> int:
    """Demand over capacity per value and slot, plus one per agent sharing with an exclusive agent."""
    w = s.world
    value_cls = w.family.decision.value if w.family.decision else ""
    total = 0
    for (_, _, v), agents in _cells_held(s).items():
        load = sum(w.attrs.get((w.agent_cls, a), {}).get(p["demand"], 0) for a in agents)
        total += max(0, load - w.attrs.get((value_cls, v), {}).get(p["capacity"], 0))
        if "exclusive" in p:
            alone = [a for a in agents if w.attrs.get((w.agent_cls, a), {}).get(p["exclusive"], 0)]
            total += len(alone) * (len(agents) - 1)
    return total


def _value_mix(p: dict[str, Any], s: Schedule) -> int:
    w = s.world
    return sum(len({w.attrs.get((w.agent_cls, a), {}).get(p["attr"]) for a in agents}) - 1
               for agents in _cells_held(s).values())


def _slot_cost(p: dict[str, Any], s: Schedule) -> int:
    total = 0
    for agent, day, period, value, cost in p.get("rows", []):
        for (d, q, v), agents in _cells_held(s).items():
            if day in (-1, d) and period in (-1, q) and value in ("*", v):
                total += cost * sum(1 for a in agents if agent in ("*", a))
    return total


INTERPRETERS: dict[str, Callable[[dict[str, Any], Schedule], int]] = {
    "count_bounds": _count_bounds, "consecutive_run_bounds": _runs_bounds, "one_per_slot": _one_per_slot,
    "coverage": _coverage, "unavailability": _unavailability, "slot_conflict": _slot_conflict,
    "pattern_prohibition": _pattern, "window_pattern_cost": _window, "assignment_cost": _assignment_cost,
    "capacity_overflow": _capacity, "spread": _spread, "stability": _stability, "compactness": _compactness,
    "precedence_lag": _precedence, "unary_no_overlap": _unary, "cumulative_renewable": _cumulative,
    "nonrenewable_budget": _budget, "time_window": _time_window, "resource_downtime": _downtime,
    "mode_choice": lambda p, s: s.bad_modes, "objective_bound": _objective_bound,
    "setup_times": _setup_times, "optional": _optional, "no_idle": _no_idle, "consecutive": _consecutive,
    "resource_ties": _ties, "same_sequence": _same_sequence, "skill_eligibility": _skill_eligibility,
    "skill_demand": _skill_demand, "skill_requirements": _skill_requirements, "spacing": _spacing,
    "slot_order": _slot_order, "shared_capacity": _shared_capacity, "value_mix": _value_mix, "slot_cost": _slot_cost,
}


def interpret(claim: Any, schedule: Schedule) -> int:
    """The violation (hard) or penalty units (soft, before the weight) the claim's sentences assign to a schedule."""
    if claim.kind == "tardiness":
        return _tardiness(claim.params, schedule, claim.hard)
    return INTERPRETERS[claim.kind](claim.params, schedule)


def verdicts_disagree(rendering: Rendering, instance: Instance, family: Family,
                      solutions: list[Solution]) -> tuple[int, list[str]]:
    """(judgements made, disagreements) of the interpreter and the verifier on every claim × schedule."""
    world = World(instance, family)
    ctx = make_context(instance, family)
    made, problems = 0, []
    for index, solution in enumerate(solutions):
        evaluation = evaluate(ctx, solution)
        schedule = Schedule(world, solution)
        for record in rendering.claims:
            claim = record.claim
            if claim.hard:
                checked = evaluation.hard_amounts.get(claim.constraint, 0)
            elif claim.weight:
                checked = evaluation.components.get(claim.constraint, 0) // claim.weight
            else:
                continue
            made += 1
            predicted = interpret(claim, schedule)
            if predicted != checked:
                problems.append(f"probe {index}: {claim.constraint} ({claim.kind}) interpreted {predicted}, "
                                f"verified {checked}")
    return made, problems


# --------------------------------------------------------------------------- probes


def probes(instance: Instance, family: Family, rng: random.Random, randoms: int = 3) -> list[Solution]:
    """Random schedules and, for every constraint, schedules at each stated bound and one beyond."""
    world = World(instance, family)
    out = [random_solution(world, rng) for _ in range(randoms)]
    for c in instance.constraints:
        if c.active:
            build = BOUNDARY.get(kind_name(c))
            if build is not None:
                out += build(own_parameters(c), world, rng)
    return out


def random_solution(world: World, rng: random.Random) -> Solution:
    """A random schedule: random modes and starts, or a random value (or none) per agent and slot."""
    if world.instance.activities:
        horizon = max(1, sum(m.duration for a in world.instance.activities for m in a.modes[:1]) // 2)
        modes = {a.name: rng.randint(1, len(a.modes)) for a in world.instance.activities}
        return Solution(starts={a.name: rng.randint(0, horizon) for a in world.instance.activities}, modes=modes)
    values = _values(world)
    agents = world.classes.get(world.agent_cls, [])
    out = []
    density = rng.choice([0.2, 0.5, 0.9])
    for agent in agents:
        for d in range(world.days):
            for q in range(world.periods):
                if world.free is not None or rng.random() < density:
                    out.append(Assignment(agent, d, q, rng.choice(values)))
    return Solution(assignments=tuple(out))


def _values(world: World) -> list[str]:
    value_cls = world.family.decision.value if world.family.decision else ""
    return world.classes.get(value_cls, [])


def _filler(world: World) -> str:
    """A working value (not the day off)."""
    return next(v for v in _values(world) if v != world.free)


def _agent_days(world: World, agent: str, worked: list[bool], value: str | None = None) -> list[Assignment]:
    """One agent's days: worked days hold ``value`` (a working value), others the day off or nothing."""
    value = value or _filler(world)
    out = []
    for d, flag in enumerate(worked):
        if flag:
            out.append(Assignment(agent, d, 0, value))
        elif world.free is not None:
            out.append(Assignment(agent, d, 0, world.free))
    return out


def _count_probes(p: dict[str, Any], world: World, rng: random.Random) -> list[Solution]:
    agents = world.chosen(p["agents"])
    if not agents or world.periods != 1 or p.get("values", {}).get("mode") != "work":
        return []
    agent = agents[0]
    out = []
    for key in ("min", "max"):
        bound = world.bound(p.get(key), agent)
        for n in ([] if bound is None else [bound - 1, bound, bound + 1]):
            if 0 <= n <= world.days:
                worked = [i < n for i in range(world.days)]
                out.append(Solution(assignments=tuple(_agent_days(world, agent, worked))))
    return out


def _run_probes(p: dict[str, Any], world: World, rng: random.Random) -> list[Solution]:
    agents = world.chosen(p["agents"])
    flt = p.get("values", {"mode": "work"})
    if not agents or world.periods != 1 or p.get("over", {}).get("over", "days") != "days" or flt["mode"] == "values":
        return []
    out = []
    for key in ("min", "max"):
        bound = p.get(key)
        for n in ([] if bound is None else [bound - 1, bound, bound + 1]):
            if 1 <= n and n + 2 <= world.days:
                run = [1 <= i <= n for i in range(world.days)]  # a run inside the schedule, not touching its ends
                worked = run if flt["mode"] == "work" else [not f for f in run]
                out.append(Solution(assignments=tuple(_agent_days(world, agents[0], worked))))
            if 1 <= n <= world.days:  # a run touching the first day: judged by its length inside
                run = [i < n for i in range(world.days)]
                worked = run if flt["mode"] == "work" else [not f for f in run]
                out.append(Solution(assignments=tuple(_agent_days(world, agents[0], worked))))
    return out


def _coverage_probes(p: dict[str, Any], world: World, rng: random.Random) -> list[Solution]:
    agents = world.classes.get(world.agent_cls, [])
    out = []
    for day, period, value, lo, hi in p["requirements"][:2]:
        for bound in (lo, hi):
            for n in ([] if bound is None else [bound - 1, bound, bound + 1]):
                if 0 <= n <= len(agents):
                    out.append(Solution(assignments=tuple(Assignment(a, day, period or 0, value) for a in agents[:n])))
    return out


def _skill_demand_probes(p: dict[str, Any], world: World, rng: random.Random) -> list[Solution]:
    """The holders of a row's skill on its value at each bound, one fewer and one more (those without the skill
    beside them, who must not count)."""
    agents = world.classes.get(world.agent_cls, [])
    out = []
    for day, period, value, skill, lo, hi in p["needs"][:2]:
        holders = [a for a in agents if skill in _skills_of(world, world.agent_cls, a, p["skills"])]
        others = [a for a in agents if a not in holders]
        for bound in (lo, hi):
            for n in ([] if bound is None else [bound - 1, bound, bound + 1]):
                if 0 <= n <= len(holders):
                    out.append(Solution(assignments=tuple(Assignment(a, day, period or 0, value)
                                                          for a in [*holders[:n], *others])))
    return out


def _skill_eligibility_probes(p: dict[str, Any], world: World, rng: random.Random) -> list[Solution]:
    """Each selected agent on every value on day 0: the values it may hold and those it may not."""
    return [Solution(assignments=tuple(Assignment(agent, 0, 0, v) for v in _values(world)))
            for agent in world.chosen(p["agents"])[:3] if world.days]


def _unavailability_probes(p: dict[str, Any], world: World, rng: random.Random) -> list[Solution]:
    out = []
    value = _filler(world)
    for agent, day, period in p["slots"][:3]:
        q = period or 0
        out.append(Solution(assignments=(Assignment(agent, day, q, value),)))  # exactly in the forbidden slot
        if period is not None and q + 1 < world.periods:  # the next period of the same day
            out.append(Solution(assignments=(Assignment(agent, day, q + 1, value),)))
        if day + 1 < world.days:  # the same period of the next day
            out.append(Solution(assignments=(Assignment(agent, day + 1, q, value),)))
    return out


def _precedence_probes(p: dict[str, Any], world: World, rng: random.Random) -> list[Solution]:
    """For each of the first edges: the right point exactly at the left point plus the delay, one unit
    before and one after (for every relation: ``X_a + δ + Δ = Y_b`` with Δ ∈ {−1, 0, 1})."""
    out = []
    for a, b, lag, relation in p["edges"][:4]:
        da, db = world.activities[a].modes[0].duration, world.activities[b].modes[0].duration
        start_a = da + db + abs(lag) + 1  # room before a, so that b can also be placed earlier than a
        x = start_a if relation[0] == "s" else start_a + da
        for delta in (-1, 0, 1):
            y = x + lag + delta
            start_b = y if relation[-1] == "s" else y - db
            if start_b >= 0:
                out.append(Solution(starts={a: start_a, b: start_b}, modes={a: 1, b: 1}))
    return out


def _setup_probes(p: dict[str, Any], world: World, rng: random.Random) -> list[Solution]:
    """For each of the first setup rows: the second activity starting exactly the setup time after the first
    ends on that resource, one unit sooner and one later."""
    out = []
    need = _setup_need(p["setups"], world)
    for resource, a, b, time in p["setups"][:3]:
        if a not in world.activities or b not in world.activities:  # a class or * row: its first pair
            job = {x.name: x.job for x in world.instance.activities}
            pairs = [(x, y, t) for (r, x, y), t in need.items()
                     if r == resource and (a == "*" or (job[x], job[y]) == (a, b))]
            if not pairs:
                continue
            a, b, time = pairs[0]
        ma, mb = _mode_using(world, a, resource), _mode_using(world, b, resource)
        if ma is None or mb is None:
            continue
        end_a = world.activities[a].modes[ma - 1].duration
        out += [Solution(starts={a: 0, b: end_a + time + delta}, modes={a: ma, b: mb}) for delta in (-1, 0, 1)
                if end_a + time + delta >= 0]
    return out


def _mode_using(world: World, activity: str, resource: str) -> int | None:
    """The number of the first mode of ``activity`` that uses ``resource``."""
    for number, mode in enumerate(world.activities[activity].modes, start=1):
        if any(u.resource == resource for u in mode.uses):
            return number
    return None


def _unary_probes(p: dict[str, Any], world: World, rng: random.Random) -> list[Solution]:
    by_machine: dict[str, list[str]] = defaultdict(list)
    for a in world.instance.activities:
        for u in a.modes[0].uses:
            if world.resources[u.resource].kind == "unary":
                by_machine[u.resource].append(a.name)
    out = []
    for acts in list(by_machine.values())[:2]:
        if len(acts) >= 2:
            a, b = acts[:2]
            d = world.activities[a].modes[0].duration
            for delta in (-1, 0):  # overlapping by one unit, touching
                out.append(Solution(starts={a: 0, b: max(0, d + delta)}, modes={a: 1, b: 1}))
    return out


def _window_probes(p: dict[str, Any], world: World, rng: random.Random) -> list[Solution]:
    out = []
    for target, release, deadline, latest_start, earliest_end, _due, _weight in p["windows"][:3]:
        for a in _members(target, world)[:1]:
            d = world.activities[a].modes[0].duration
            starts = [release - 1, release, *((latest_start, latest_start + 1) if latest_start is not None else ())]
            ends = [*((deadline, deadline + 1) if deadline is not None else ()),
                    *((earliest_end - 1, earliest_end) if earliest_end is not None else ())]
            out += [Solution(starts={a: start}, modes={a: 1}) for start in starts if start >= 0]
            out += [Solution(starts={a: max(0, end - d)}, modes={a: 1}) for end in ends]
    return out


def _downtime_probes(p: dict[str, Any], world: World, rng: random.Random) -> list[Solution]:
    out = []
    for resource, lo, hi, _label in p["windows"][:3]:
        for a in world.instance.activities:
            for number, mode in enumerate(a.modes, start=1):
                if any(u.resource == resource for u in mode.uses) and mode.duration:
                    d = mode.duration
                    for start in (lo - d, lo - d + 1, hi, hi - 1):  # end at a, overlap by 1, start at b, 1 early
                        if start >= 0:
                            out.append(Solution(starts={a.name: start}, modes={a.name: number}))
                    break
            else:
                continue
            break
    return out


def _tardiness_probes(p: dict[str, Any], world: World, rng: random.Random) -> list[Solution]:
    out = []
    for target, due, _weight in p["due_dates"][:3]:
        members = _members(target, world)
        last = members[-1]
        d = world.activities[last].modes[0].duration
        for end in (due, due + 1):
            if end - d >= 0:
                out.append(Solution(starts={last: end - d}, modes={last: 1}))
    return out


def _objective_bound_probes(p: dict[str, Any], world: World, rng: random.Random) -> list[Solution]:
    """Makespan: one activity ending exactly at the bound and one unit after it. A penalty bound has no
    schedule of a given penalty to build here; tests/test_claims.py probes it at a measured penalty."""
    if p["measure"] != "makespan" or not world.instance.activities:
        return []
    a = world.instance.activities[0]
    d = a.modes[0].duration
    return [Solution(starts={a.name: end - d}, modes={a.name: 1}) for end in (p["max"], p["max"] + 1) if end >= d]


def _skill_requirements_probes(p: dict[str, Any], world: World, rng: random.Random) -> list[Solution]:
    """For two activities with rows: a team of exactly the units' number of holders, one member fewer, and the
    same worker on two activities overlapping by one time unit and touching."""
    staff = world.chosen(p["workers"])
    cls = p["workers"]["cls"]
    rows: dict[str, list[str]] = defaultdict(list)
    for activity, skill, count in p["needs"]:
        rows[activity] += [skill] * count
    out = []
    for activity, units in list(rows.items())[:2]:
        team: list[str] = []
        for skill in units:  # greedy: the first free holder of each unit
            holder = next((w for w in staff if w not in team and skill in (world.attrs[(cls, w)].get(p["skills"])
                                                                           or ())), None)
            if holder is not None:
                team.append(holder)
        for members in (team, team[:-1]):
            out.append(Solution(starts={activity: 0}, modes={activity: 1}, workers={activity: tuple(members)}))
    acts = [a.name for a in world.instance.activities if a.modes[0].duration > 0][:2]
    if len(acts) == 2 and staff:
        a, b = acts
        d = world.activities[a].modes[0].duration
        for delta in (-1, 0):
            out.append(Solution(starts={a: 0, b: d + delta}, modes={a: 1, b: 1},
                                workers={a: (staff[0],), b: (staff[0],)}))
    return out


BOUNDARY: dict[str, Callable[[dict[str, Any], World, random.Random], list[Solution]]] = {
    "count_bounds": _count_probes, "consecutive_run_bounds": _run_probes, "coverage": _coverage_probes,
    "unavailability": _unavailability_probes, "precedence_lag": _precedence_probes,
    "unary_no_overlap": _unary_probes, "time_window": _window_probes, "resource_downtime": _downtime_probes,
    "tardiness": _tardiness_probes, "objective_bound": _objective_bound_probes, "setup_times": _setup_probes,
    "skill_demand": _skill_demand_probes, "skill_eligibility": _skill_eligibility_probes,
    "skill_requirements": _skill_requirements_probes,
}
