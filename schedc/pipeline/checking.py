"""``schedc check`` (one answer or a batch), ``render`` and ``grammar`` as library functions: a verifier
that reads answers in a rendering's names, answers decoded as text, the rendering and its answer grammars."""

from __future__ import annotations

import codecs
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from schedc.core.diagnostics import SchedcError
from schedc.ir import Family, Instance
from schedc.lang.load import Source, resolve, source_label

if TYPE_CHECKING:
    from schedc.pipeline.hints import NamingHints
    from schedc.render.model import Rendering
    from schedc.verify.verifier import CheckReport, Verifier

def read_names(path: Path | None) -> dict[str, str]:
    """A display-name mapping file: a JSON object {IR name: displayed name}."""
    if path is None:
        return {}
    try:
        data = msgspec.json.decode(path.read_bytes())
    except (OSError, msgspec.DecodeError) as exc:
        raise SchedcError.at("E401", f"cannot read the name mapping: {exc}", file=str(path)) from None
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
        raise SchedcError.at("E402", "a name mapping is a JSON object of strings {\"IR name\": \"shown name\"}",
                             file=str(path))
    return data

def verifier_for(spec: Source, names: Mapping[str, str] | None = None, variant: str | None = None,
                 seed: int = 42, search: Sequence[str | os.PathLike[str]] = (), duplicates: str = "error") -> Verifier:
    """A verifier for the instance in ``spec`` (checks many answers without re-parsing).

    With ``variant``, answers are read with the display names of that rendering (``schedc
    render SPEC --variant V --seed S``); explicit ``names`` override single entries.
    ``duplicates``: ``error`` (a repeated assignment is a hard violation) or ``warn`` (reported,
    not counted: the official ITC-2007 validator's policy).
    """
    return _checker(spec, names, variant, seed, search, duplicates)[0]

def _checker(spec: Source, names: Mapping[str, str] | None, variant: str | None, seed: int,
             search: Sequence[str | os.PathLike[str]], duplicates: str) -> tuple[Verifier, NamingHints | None]:
    """The verifier of :func:`verifier_for` and, when answers are read with canonical names (no variant,
    no names), the naming hints for them (:mod:`schedc.pipeline.hints`)."""
    from schedc.pipeline.hints import NamingHints
    from schedc.verify.verifier import DUPLICATE_POLICIES, Verifier

    if duplicates not in DUPLICATE_POLICIES:
        raise SchedcError.at("E407", f"unknown duplicate policy {duplicates!r}",
                             hint="policies: " + ", ".join(DUPLICATE_POLICIES))
    instance, family, folders = resolve(spec, search)
    verifier = Verifier(instance, family, shown_names(instance, family, folders, variant, seed, names),
                        duplicates)  # type: ignore[arg-type]
    hints = None if variant is not None or names else NamingHints(instance, family, folders)
    return verifier, hints

def check_answer(spec: Source, text: str, names: Mapping[str, str] | None = None, variant: str | None = None,
                 seed: int = 42, search: Sequence[str | os.PathLike[str]] = (),
                 duplicates: str = "error") -> CheckReport:
    """``schedc check``: the report on one answer text; read without a rendering's names, an answer whose
    names are a themed rendering's gets a ``naming_hint`` saying which ``--variant``/``--seed`` to pass."""
    verifier, hints = _checker(spec, names, variant, seed, search, duplicates)
    report = verifier.check(text)
    return report if hints is None else hints.add(report, text)

def shown_names(instance: Instance, family: Family, search: Sequence[Path], variant: str | None, seed: int,
                names: Mapping[str, str] | None = None) -> dict[str, str] | None:
    """The display names answers use: a rendering's (with ``variant``), overridden by ``names``."""
    if variant is None:
        return dict(names) if names else None
    from schedc.render import display_names

    return {**display_names(instance, family, variant, seed, search), **(names or {})}

def render_file(spec: Source, variant: str = "v1", seed: int = 42,
                search: Sequence[str | os.PathLike[str]] = ()) -> Rendering:
    """``schedc render``: the rendering of the instance in ``spec`` in one variant and seed."""
    from schedc.render import render

    instance, family, folders = resolve(spec, search)
    return render(instance, family, variant, seed, folders)

def read_answer(path: Path) -> str:
    """An answer file as text: UTF-8, or UTF-16 after its byte order mark (undecodable bytes are replaced)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SchedcError.at("E403", f"cannot read the answer: {exc.strerror or exc}", file=str(path)) from None
    return decode_answer(data)

def decode_answer(data: bytes) -> str:
    """Answer bytes as text: UTF-16 when they start with its byte order mark, else UTF-8 (never fails)."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16", errors="replace")
    return data.decode("utf-8", errors="replace")

def check_batch(spec: Path | None, lines: Iterable[str], names: dict[str, str] | None = None,
                variant: str | None = None, seed: int = 42, duplicates: str = "error") -> Iterator[bytes]:
    """``schedc check --batch``: JSONL records ``{"id", "answer"[, "spec"]}`` → JSONL reports.

    One report per non-blank record, in order. The spec of each record (``spec`` or the
    default) is parsed once and reused. A record that is not valid JSON, names a bad spec, or
    makes the verifier fail in any way gets a report with an ``error`` field; the other
    records are checked all the same.
    """
    verifiers: dict[Path, Any] = {}
    encoder = msgspec.json.Encoder()
    for number, line in enumerate(lines, start=1):
        if line.strip():
            yield encoder.encode(_batch_record(line, number, spec, verifiers, (names, variant, seed, duplicates)))

def _batch_record(line: str, number: int, spec: Path | None, verifiers: dict[Path, Any],
                  reading: tuple[dict[str, str] | None, str | None, int, str]) -> dict[str, Any]:
    """The report of one batch record, or its ``{"id", "line", "error"}`` record."""
    record_id: Any = number
    try:
        record = _decode_record(line)
        if isinstance(record, dict):
            record_id = record.get("id", number)
        target = _record_spec(record, spec)
        names, variant, seed, duplicates = reading
        if target not in verifiers:
            verifiers[target] = _checker(target, names, variant, seed, (), duplicates)
        verifier, hints = verifiers[target]
        report = verifier.check(record["answer"])
        if hints is not None:
            report = hints.add(report, record["answer"])
        return {"id": record_id, **msgspec.to_builtins(report)}
    except (ValueError, SchedcError) as exc:
        return {"id": record_id, "line": number, "error": str(exc)}
    except Exception as exc:  # noqa: BLE001 - one record's failure must not lose the other records
        return {"id": record_id, "line": number, "error": f"internal error ({type(exc).__name__}): {exc}"}

def _decode_record(line: str) -> Any:
    """A batch line as JSON data, or a ValueError (also for nesting too deep to decode)."""
    try:
        return msgspec.json.decode(line)
    except msgspec.DecodeError as exc:
        raise ValueError(str(exc)) from None
    except RecursionError:
        raise ValueError("JSON is malformed: nested too deeply") from None

def _record_spec(record: Any, default: Path | None) -> Path:
    """The spec a batch record is checked against, or a ValueError for a malformed record."""
    if not isinstance(record, dict) or not isinstance(record.get("answer"), str):
        raise ValueError('each record is a JSON object with a string "answer"')
    if "spec" in record and not isinstance(record["spec"], str):
        raise ValueError('"spec" must be a path string')
    target = Path(record["spec"]) if "spec" in record else default
    if target is None:
        raise ValueError('no spec: give SPEC on the command line or "spec" in the record')
    return target

def grammar_file(spec: Source, fmt: str, variant: str | None = None, seed: int = 42,
                 names: Mapping[str, str] | None = None, search: Sequence[str | os.PathLike[str]] = (),
                 lines: str = "any") -> str:
    """``schedc grammar``: the answer format of a rendering as text, Lark, GBNF or JSON Schema.

    ``text`` is the response-format stanza of the rendered prompt itself (variant v1 when none is
    given); with a ``names`` mapping of one's own it is the stanza :func:`schedc.grammars.text_stanza`
    writes for those names. ``lines="exact"`` fixes the number of lines of the Lark and GBNF grammars.
    """
    from schedc.grammars import FORMATS, answer_grammar

    if fmt not in FORMATS:
        raise SchedcError.at("E405", f"unknown grammar format {fmt!r}", hint="formats: " + ", ".join(FORMATS))
    if lines not in ("any", "exact"):
        raise SchedcError.at("E407", f"unknown line mode {lines!r}", hint="--lines any or --lines exact")
    instance, family, folders = resolve(spec, search)
    if fmt == "text" and not names:
        from schedc.render import render

        return render(instance, family, variant or "v1", seed, folders).response_format
    try:
        return answer_grammar(instance, family, shown_names(instance, family, folders, variant, seed, names), fmt,
                              lines)
    except ValueError as exc:  # a names mapping the verifier could not read back, or lines it cannot fix
        raise SchedcError.at("E406", f"cannot state the answer format: {exc}", file=source_label(spec)) from None
