"""Round trip: import → print → parse gives the same IR, and the printer is a fixed point.

Runs on every bundled source file and on every file of ../shared/data when present.
"""

from __future__ import annotations

import msgspec
import pytest

from schedc.importers import import_paths
from schedc.ir import Instance, equal_ignoring_spans, from_json, to_json
from schedc.lang.parser import parse_instance_text
from schedc.lang.printer import print_instance
from tests.sources import all_sources, source_id

SOURCES = all_sources()


@pytest.mark.parametrize("source", SOURCES, ids=[source_id(s) for s in SOURCES])
def test_import_print_parse_is_identity(source: tuple) -> None:
    fmt, path, cases = source
    [instance] = import_paths(fmt, [path], cases=cases)
    text = print_instance(instance)
    reparsed = parse_instance_text(text, file=f"{instance.name}.sched")
    assert equal_ignoring_spans(reparsed, instance)
    assert print_instance(reparsed) == text  # fmt is idempotent
    # the parsed IR keeps where every constraint came from
    assert all(c.span is not None and c.span.line >= 1 for c in reparsed.constraints)
    # IR <-> JSON
    assert from_json(to_json(reparsed)) == reparsed


def test_json_is_tagged_by_kind() -> None:
    [instance] = import_paths("jsplib", [SOURCES[0][1]])
    data = msgspec.json.decode(to_json(instance))
    assert [c["kind"] for c in data["constraints"]] == ["precedence_lag", "unary_no_overlap", "mode_choice"]
    assert isinstance(msgspec.json.decode(to_json(instance), type=Instance), Instance)


def test_examples_parse_and_format_idempotently() -> None:
    from tests.conftest import ROOT

    examples = sorted((ROOT / "examples").glob("*.sched"))
    assert len(examples) >= 7
    for path in examples:
        from schedc.pipeline.files import format_text

        text = path.read_text()
        once = format_text(text, str(path), [path.parent])
        assert format_text(once, str(path), [path.parent]) == once
