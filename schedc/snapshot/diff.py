"""What changed between a stored snapshot document and the one built now, meaning first.

:func:`compare` gives a :class:`SpecDiff`:

* the semantic changes — of the options, of the claims (``\\`max_assignments\\` of contract full: max 4 → 3``,
  ``constraint \\`routes\\` added: hard precedence_lag``, a table's rows one by one), of the instance's
  data facts (``duration J1.2: 3 → 4``) and of the reference solve;
* the text changes of the renderings, sentence by sentence (a sentence ends at ``.``, ``!`` or ``?``
  before a blank and a character that is not a lowercase letter; a line is never joined with the next),
  renderings that changed alike grouped into one change;
* the text changes of the answer grammars, line by line, grouped alike per format.

A reference objective that was not proven (neither optimal nor infeasible within the time limit) can
differ from run to run: a difference there is a note, not a change.
"""

from __future__ import annotations

import difflib
import json
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

import msgspec

from schedc.snapshot.document import expanded
from schedc.snapshot.store import dumps

_MISSING: Any = object()


class Hunk(msgspec.Struct, frozen=True):
    """One place where a text changed: the sentences (or lines) it lost and those it gained."""

    removed: list[str]
    added: list[str]


class TextChange(msgspec.Struct, frozen=True):
    """The same change of the renderings (or of the grammars in ``format``) named in ``keys``."""

    keys: list[str]
    hunks: list[Hunk] = []
    note: str | None = None
    format: str | None = None
    #: sentences that are only in another place now (left out of the hunks)
    moved: int = 0


class SpecDiff(msgspec.Struct, kw_only=True):
    """The changes of one spec's snapshot. ``status``: ``unchanged``, ``changed``, ``new`` (no snapshot
    stored yet) or ``removed`` (a stored snapshot whose spec is not among the paths any more)."""

    spec: str
    snapshot: str
    status: str
    options: list[str] = []
    claims: list[str] = []
    data: list[str] = []
    solve: list[str] = []
    renderings: list[TextChange] = []
    grammars: list[TextChange] = []
    notes: list[str] = []

    @property
    def semantic(self) -> list[str]:
        """The semantic changes in report order: options, claims, data, solve."""
        return [*self.options, *self.claims, *self.data, *self.solve]


def compare(stored: dict[str, Any] | None, observed: dict[str, Any], spec: str, snapshot: str,
            stored_text: str | None = None) -> SpecDiff:
    """The changes from ``stored`` (None: no snapshot yet) to ``observed``. With the ``stored_text`` of the
    file, a file that holds the same document in another layout (a hand edit) is a change too."""
    if stored is None:
        return SpecDiff(spec=spec, snapshot=snapshot, status="new")
    solve, notes = solve_changes(stored.get("solve"), observed.get("solve"))
    diff = SpecDiff(spec=spec, snapshot=snapshot, status="changed",
                    options=header_changes(stored, observed), claims=claim_changes(stored["claims"],
                                                                                   observed["claims"]),
                    data=data_changes(stored["data"], observed["data"]), solve=solve,
                    renderings=rendering_changes(stored["renderings"], observed["renderings"]),
                    grammars=grammar_changes(stored["grammars"], observed["grammars"]), notes=notes)
    if notes:  # an unproven outcome is not compared: the stored one stands
        observed = {**observed, "solve": stored["solve"]}
    if stored_text is not None:
        differs = stored_text != dumps(observed)
    else:
        differs = json.dumps(stored, sort_keys=True) != json.dumps(observed, sort_keys=True)
    if differs and not (diff.semantic or diff.renderings or diff.grammars):
        diff.options = ["the file holds the same snapshot in another layout (a hand edit?)"]
    diff.status = "changed" if differs else "unchanged"
    return diff


def show(value: Any) -> str:
    """A JSON value as the report writes it: ``12``, ``"full"``, ``null``, ``[2, null, "E", 1, 1]``."""
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


# --------------------------------------------------------------------------- options and header


def header_changes(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """Changes of the instance's name or family and of the snapshot's options."""
    out = [f"{name} {show(old[name])} → {show(new[name])}" for name in ("instance", "family")
           if old[name] != new[name]]
    before, after = old["options"], new["options"]
    for name in sorted(before.keys() | after.keys()):
        a, b = before.get(name), after.get(name)
        if a != b:
            out.append(f"option {name}: {_listed(a)} → {_listed(b)}")
    return out


def _listed(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) if value else "none"
    return "none" if value is None else show(value)


# --------------------------------------------------------------------------- claims


def claim_changes(old: dict[str, dict[str, Any]], new: dict[str, dict[str, Any]]) -> list[str]:
    """Constraints added or removed, and each parameter that changed, per constraint id."""
    out: list[str] = []
    for cid in sorted(old.keys() | new.keys()):
        before, after = old.get(cid), new.get(cid)
        if before is None:
            out.append(f"constraint `{cid}` added: {_modality(after)} {after.get('kind')}{scope(after)}")
        elif after is None:
            out.append(f"constraint `{cid}` removed: {_modality(before)} {before.get('kind')}{scope(before)}")
        elif before != after:
            same_agents = before.get("agents") == after.get("agents")
            out += _param_changes(f"`{cid}`" + (scope(after) if same_agents else ""), before, after, "")
    return out


def _modality(claim: dict[str, Any]) -> str:
    return "hard" if claim.get("hard") else f"soft (weight {claim.get('weight')})"


def scope(claim: dict[str, Any]) -> str:
    """`` of contract full`` for a claim over the agents with that attribute (or those names); ``""`` for all."""
    agents = claim.get("agents")
    if not isinstance(agents, dict):
        return ""
    parts = [" ".join(str(p) for p in pair) for pair in agents.get("where", ()) if isinstance(pair, list)]
    parts += [str(n) for n in agents.get("names", ())]
    return " of " + ", ".join(parts) if parts else ""


def _param_changes(subject: str, before: dict[str, Any], after: dict[str, Any], path: str) -> list[str]:
    out: list[str] = []
    for name in sorted(before.keys() | after.keys()):
        a, b = before.get(name, _MISSING), after.get(name, _MISSING)
        label = path + name
        if a == b:
            continue
        if label == "hard" and isinstance(a, bool) and isinstance(b, bool):
            out.append(f"{subject}: {'hard' if a else 'soft'} → {'hard' if b else 'soft'}")
        elif a is _MISSING:
            out.append(f"{subject}: {label} {show(b)} added")
        elif b is _MISSING:
            out.append(f"{subject}: {label} {show(a)} removed")
        elif isinstance(a, dict) and isinstance(b, dict):
            out += _param_changes(subject, a, b, label + ".")
        elif isinstance(a, list) and isinstance(b, list) and _is_table(a, b):
            out += [f"{subject}: {label} {line}" for line in row_changes(a, b)]
        else:
            out.append(f"{subject}: {label} {show(a)} → {show(b)}")
    return out


def _is_table(a: list[Any], b: list[Any]) -> bool:
    """A list compared row by row: one of rows (lists or objects), or a long one."""
    return any(isinstance(v, list | dict) for v in (*a, *b)) or len(a) + len(b) > 8


def row_changes(a: Sequence[Any], b: Sequence[Any]) -> list[str]:
    """``row X → Y`` for a row that changed in place (most of its cells kept), ``row X removed`` and
    ``row Y added`` otherwise, in the order of the table."""
    old, new = [show(r) for r in a], [show(r) for r in b]
    out: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag != "equal":
            out += _paired(a[i1:i2], b[j1:j2])
    return out


def _paired(old: Sequence[Any], new: Sequence[Any]) -> list[str]:
    """The rows of one replaced block: each old row paired with the next new row sharing most of its cells."""
    out: list[str] = []
    start = 0
    for row in old:
        match = next((j for j in range(start, len(new)) if _alike(row, new[j])), None)
        if match is None:
            out.append(f"row {show(row)} removed")
            continue
        out += [f"row {show(added)} added" for added in new[start:match]]
        out.append(f"row {show(row)} → {show(new[match])}")
        start = match + 1
    return out + [f"row {show(added)} added" for added in new[start:]]


def _alike(a: Any, b: Any) -> bool:
    """Two rows that share at least half of their cells, in order (a row that is not a list: never)."""
    if not (isinstance(a, list) and isinstance(b, list)):
        return False
    cells = difflib.SequenceMatcher(None, [show(c) for c in a], [show(c) for c in b], autojunk=False)
    return cells.ratio() >= 0.5


# --------------------------------------------------------------------------- data facts and solve


def data_changes(old: dict[str, list[Any]], new: dict[str, list[Any]]) -> list[str]:
    """``duration J1.2: 3 → 4``, ``duration J7.1 added: 4``, ``attr employee Ann contract removed: "full"``."""
    out: list[str] = []
    for name in sorted(old.keys() | new.keys()):
        a, b = old.get(name), new.get(name)
        if a == b:
            continue
        if a is None or b is None:
            values = b if a is None else a
            out.append(f"{name} {'added' if a is None else 'removed'}" + (f": {_values(values)}" if values else ""))
        else:
            out.append(f"{name}: {_values(a)} → {_values(b)}")
    return out


def _values(values: list[Any]) -> str:
    return " ".join(show(v) for v in values) if values else "(no value)"


def solve_changes(old: dict[str, Any] | None, new: dict[str, Any] | None) -> tuple[list[str], list[str]]:
    """(changes, notes) of the reference solve: outcomes are compared only when both are proven."""
    if old == new:
        return [], []
    if old is None or new is None:
        what = "added" if old is None else "removed"
        return [f"reference solve {what}: {_outcome(new if old is None else old)}"], []
    line = f"reference {_outcome(old)} → {_outcome(new)}"
    if old["proven"] and new["proven"]:
        return [line], []
    return [], [line + " (not compared: not proven within the time limit)"]


def _outcome(solve: dict[str, Any] | None) -> str:
    if solve is None:
        return "none"
    objective = "" if solve.get("objective") is None else f", objective {solve['objective']}"
    return f"{solve.get('status')}{objective}"


# --------------------------------------------------------------------------- texts

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[^\sa-z])")


def sentences(lines: Sequence[str]) -> list[str]:
    """The sentences of a text, line by line (blank lines dropped)."""
    return [part for line in lines if line.strip() for part in _SENTENCE_END.split(line.strip())]


def hunks(old: Sequence[str], new: Sequence[str]) -> list[Hunk]:
    """The places where ``new`` differs from ``old`` (items: sentences or lines)."""
    matcher = difflib.SequenceMatcher(None, list(old), list(new), autojunk=False)
    return [Hunk(removed=list(old[i1:i2]), added=list(new[j1:j2]))
            for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def rendering_changes(old: dict[str, Any], new: dict[str, Any]) -> list[TextChange]:
    """Renderings added, removed, re-themed or reworded (sentence hunks), alike ones grouped."""
    before, after = expanded(old), expanded(new)
    changes: list[tuple[str | None, list[Hunk], str, int]] = []
    for name in sorted(before.keys() | after.keys()):
        a, b = before.get(name), after.get(name)
        if a == b:
            continue
        if a is None or b is None:
            changes.append(("added" if a is None else "removed", [], name, 0))
            continue
        if a.get("theme") != b.get("theme"):
            changes.append((f"theme {show(a.get('theme'))} → {show(b.get('theme'))}", [], name, 0))
        text_a, text_b = [*a["system"], "", *a["prompt"]], [*b["system"], "", *b["prompt"]]
        if text_a != text_b:
            found, moved = without_moves(hunks(sentences(text_a), sentences(text_b)))
            note = None if found or moved else "line breaks only"
            changes.append((note, found, name, moved))
    return _grouped(changes, None)


def without_moves(found: list[Hunk]) -> tuple[list[Hunk], int]:
    """The hunks without the sentences that were only moved (removed in one place, added in another
    unchanged), and how many those are: a new order (variant v2's permutation) is not a rewording."""
    moved = Counter(s for h in found for s in h.removed) & Counter(s for h in found for s in h.added)
    if not moved:
        return found, 0
    left_removed, left_added = Counter(moved), Counter(moved)
    out = []
    for hunk in found:
        removed = [s for s in hunk.removed if not _take(left_removed, s)]
        added = [s for s in hunk.added if not _take(left_added, s)]
        if removed or added:
            out.append(Hunk(removed=removed, added=added))
    return out, sum(moved.values())


def _take(counts: Counter[str], item: str) -> bool:
    """Take one ``item`` from ``counts`` if any is left."""
    if counts[item] > 0:
        counts[item] -= 1
        return True
    return False


def grammar_changes(old: dict[str, Any], new: dict[str, Any]) -> list[TextChange]:
    """Per format: grammars added, removed or changed (line hunks), alike ones grouped."""
    out: list[TextChange] = []
    for fmt in sorted(old.keys() | new.keys()):
        if fmt not in old or fmt not in new:
            out.append(TextChange(keys=sorted(new.get(fmt) or old.get(fmt) or {}),
                                  note="format added" if fmt not in old else "format removed", format=fmt))
            continue
        before, after = expanded(old[fmt]), expanded(new[fmt])
        changes: list[tuple[str | None, list[Hunk], str, int]] = []
        for name in sorted(before.keys() | after.keys()):
            a, b = before.get(name), after.get(name)
            if a == b:
                continue
            if a is None or b is None:
                changes.append(("added" if a is None else "removed", [], name, 0))
            else:
                changes.append((None, hunks(a["lines"], b["lines"]), name, 0))
        out += _grouped(changes, fmt)
    return out


def _grouped(changes: list[tuple[str | None, list[Hunk], str, int]], fmt: str | None) -> list[TextChange]:
    """One TextChange per distinct (note, hunks, moves), naming every key that has it, in first-seen order."""
    groups: dict[str, tuple[str | None, list[Hunk], int, list[str]]] = {}
    for note, found, name, moved in changes:
        fingerprint = json.dumps([note, moved, [[h.removed, h.added] for h in found]], ensure_ascii=False)
        groups.setdefault(fingerprint, (note, found, moved, []))[3].append(name)
    return [TextChange(keys=names, hunks=found, note=note, format=fmt, moved=moved)
            for note, found, moved, names in groups.values()]


def keys_label(keys: Sequence[str]) -> str:
    """``v1/42,43 v2/42``: keys grouped by variant, in the order given."""
    seeds: dict[str, list[str]] = {}
    for name in keys:
        variant, _, seed = name.partition("/")
        seeds.setdefault(variant, []).append(seed)
    return " ".join(f"{v}/{','.join(s)}" for v, s in seeds.items())


