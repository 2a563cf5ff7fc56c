"""The review text of snapshot changes: per spec, the semantic changes, then the sentences, then the grammars.

The same lines make ``schedc snapshot check``'s output and the failure message of the pytest fixture
(:mod:`schedc.testing`). A section longer than ``limit`` lines is cut with a count of what is left out
(``--json`` and the snapshot file's own diff have everything): a semantic section after ``limit`` lines, each
group of renderings or grammars that changed alike after ``limit // 2`` lines.
"""

from __future__ import annotations

from collections.abc import Sequence

from schedc.snapshot.diff import SpecDiff, TextChange, keys_label

STATUS = {"changed": "changed", "new": "no snapshot yet", "removed": "snapshot without a spec",
          "unchanged": "unchanged"}
LIMIT = 60


def spec_lines(diff: SpecDiff, limit: int = LIMIT) -> list[str]:
    """The report of one spec: a head line, then its changes indented."""
    if diff.status == "removed":
        return [f"{diff.snapshot}: {STATUS[diff.status]}",
                "  its spec is gone or renamed; `schedc snapshot update` deletes it"]
    out = [f"{diff.spec}: {STATUS[diff.status]} ({diff.snapshot})"]
    if diff.status == "new":
        return out + ["  `schedc snapshot update` writes it; review it before committing"]
    for title, lines in (("snapshot", diff.options), ("claims", diff.claims), ("data", diff.data),
                         ("reference solve", diff.solve), ("note", diff.notes)):
        if lines:
            out.append(f"  {title}:")
            out += _capped([f"    {line}" for line in lines], limit, "    ")
    for title, changes in (("renderings, sentence by sentence", diff.renderings),
                           ("grammars, line by line", diff.grammars)):
        if changes:
            out.append(f"  {title}:")
            out += [line for change in changes for line in _capped(change_lines(change), limit // 2, "      ")]
    return out


def change_lines(change: TextChange) -> list[str]:
    """``    v1/42,43 v2/42:`` (format first for a grammar), the note or the hunks as ``-``/``+`` lines."""
    label = keys_label(change.keys)
    head = f"    {change.format + ' ' if change.format else ''}{label}:"
    if change.note is not None:
        return [f"{head} {change.note}"]
    out = [head]
    for hunk in change.hunks:
        out += [f"      - {text}" for text in hunk.removed]
        out += [f"      + {text}" for text in hunk.added]
    if change.moved:
        out.append(f"      ({change.moved} {'sentence' if change.moved == 1 else 'sentences'} only moved)")
    return out


def _capped(lines: list[str], limit: int, indent: str) -> list[str]:
    if len(lines) <= limit:
        return lines
    return lines[:limit] + [f"{indent}… {len(lines) - limit} more lines (--json lists them all)"]


def check_lines(diffs: Sequence[SpecDiff], update_hint: str, limit: int = LIMIT) -> list[str]:
    """The whole report of ``schedc snapshot check``: every spec that is not unchanged, then a summary."""
    out: list[str] = []
    for diff in diffs:
        if diff.status != "unchanged" or diff.notes:
            out += spec_lines(diff, limit) + [""]
    changed = sum(1 for d in diffs if d.status != "unchanged")
    checked = sum(1 for d in diffs if d.status != "removed")
    if changed:
        out.append(f"{changed} of {len(diffs)} snapshots changed; after review, accept with: {update_hint}")
    else:
        out.append(f"{checked} snapshots unchanged")
    return out
