"""The syrupy side of ``schedc_snapshot``: a single-file extension holding a snapshot document, whose
diff is the semantic-first report of :mod:`schedc.snapshot.report`, and the assertion helper.

A snapshot is stored as ``__snapshots__/<test file>/<test name>[<spec stem>].schedc``: the bytes
``schedc snapshot update`` writes for the same spec and options (line-oriented canonical JSON, ``\\n``
line ends on every platform; a checkout that turned them into ``\\r\\n`` still matches). The file ending is
not ``.json`` so that syrupy's JSON extension, used in the same test module, never takes these files for
its own.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from schedc.core.diagnostics import SchedcError
from schedc.snapshot import compare, dumps, loads, observe, options, spec_lines
from schedc.snapshot.document import DEFAULT_TIME_LIMIT

UPDATE_HINT = "After review, accept the change with: pytest --snapshot-update"


class SchedcSnapshotExtension(SingleFileSnapshotExtension):
    """One spec's snapshot document per file; the failure diff says what changed, claims first."""

    file_extension = "schedc"
    _write_mode = WriteMode.BINARY

    def serialize(self, data: Any, **_: Any) -> bytes:
        """A document's file text (given as the text or as its UTF-8 bytes) as bytes."""
        return data if isinstance(data, bytes) else str(data).encode("utf-8")

    def matches(self, *, serialized_data: Any, snapshot_data: Any) -> bool:
        """Equal bytes, once ``\\r\\n`` is read as ``\\n``."""
        return _text(serialized_data) == _text(snapshot_data)

    def diff_lines(self, serialized_data: Any, snapshot_data: Any) -> Iterator[str]:
        """The review report: semantic changes, then sentences, then grammars (a stored file that does not
        read: what is wrong with it)."""
        new = loads(_text(serialized_data), "<rendered now>")
        old_text = _text(snapshot_data)
        if not old_text:
            yield f"{new['instance']}: no snapshot yet"
            return
        try:
            old = loads(old_text, "<stored snapshot>")
        except SchedcError as exc:
            yield from str(exc).splitlines()
            return
        yield from spec_lines(compare(old, new, new["instance"], "syrupy snapshot", old_text))


def _text(data: Any) -> str:
    if data is None:
        return ""
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else str(data)
    return text.replace("\r\n", "\n")


class SchedcSnapshot:
    """What the ``schedc_snapshot`` fixture gives a test: :meth:`assert_match` of specs against snapshots."""

    def __init__(self, snapshot: SnapshotAssertion, root: Path):
        self.snapshot = snapshot.use_extension(SchedcSnapshotExtension)
        self.root = root

    def assert_match(self, spec: str | Path, *, variants: Sequence[str] | None = None,
                     seeds: Sequence[int] | None = None, formats: Sequence[str] = (), with_solve: bool = False,
                     time_limit: float = DEFAULT_TIME_LIMIT, name: str | None = None) -> None:
        """Fail the test, listing the changes, unless the renderings of ``spec`` (a path, relative to pytest's
        root folder) in ``variants`` × ``seeds`` (default: the five variants, seed 42), its claims, its
        answer grammars in ``formats`` and (``with_solve``) its reference objective are those of its
        snapshot; under ``--snapshot-update`` write the snapshot instead. ``name`` tells the snapshots of
        one test apart (default: the spec's file stem)."""
        path = Path(spec)
        if not path.is_absolute():
            path = self.root / path
        try:
            text = dumps(observe(path, options(variants, seeds, formats, with_solve, time_limit)))
        except SchedcError as exc:
            pytest.fail(f"schedc_snapshot cannot render {spec}:\n{exc}", pytrace=False)
        assertion = self.snapshot(name=name or path.stem)
        if not assertion == text:
            lines = self.snapshot.get_assert_diff()
            pytest.fail("\n".join([f"the renderings of {spec} differ from their snapshot:", *lines, UPDATE_HINT]),
                        pytrace=False)
