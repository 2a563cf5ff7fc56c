"""The library functions behind the CLI commands (usable from Python as they are).

Every function that takes an instance accepts a :data:`Source`: a path (``str`` or
:class:`~pathlib.Path`) of a ``.sched`` file, the text of one, or an :class:`Instance`
already parsed (:func:`resolve`). The friendlier names ``schedc.load``, ``schedc.solve``,
``schedc.render``, ``schedc.check`` and ``schedc.grammar`` live in :mod:`schedc.api`.
"""

from __future__ import annotations

import codecs
import os
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TypeAlias

import msgspec

from schedc.core.diagnostics import SchedcError
from schedc.importers import import_paths, write_instances
from schedc.importers.common import write_atomic
from schedc.ir import Family, Instance
from schedc.kinds import kind_name
from schedc.lang.family import load_family, looks_like_family
from schedc.lang.family_parser import parse_family_text
from schedc.lang.parser import parse_file, parse_instance_text
from schedc.lang.printer import print_family, print_instance

if TYPE_CHECKING:
    from schedc.backends.base import SolveResult
    from schedc.core.solution import Solution
    from schedc.render.model import Rendering
    from schedc.verify.verifier import Verifier

Source: TypeAlias = str | os.PathLike[str] | Instance
"""An instance: the path of a ``.sched`` file, the text of one, or a parsed :class:`Instance`."""


class Resolved(NamedTuple):
    """An instance with its family and the folders its family (and themes) are looked up in."""

    instance: Instance
    family: Family
    search: list[Path]


def load_instance(path: str | os.PathLike[str], search: Sequence[Path] = ()) -> Instance:
    """Parse an instance file; a SchedcError if it is a family spec or invalid."""
    result = parse_file(path, search)
    if not isinstance(result, Instance):
        raise SchedcError.at("E119", "expected an instance file, found a family spec", file=str(path), line=1)
    return result


def is_path_text(source: str) -> bool:
    """Whether a string names a file rather than holding ``.sched`` text.

    A string is a path when it is one line and names an existing file or ends in ``.sched``
    (so that a missing file is reported as such, not as a syntax error).
    """
    if "\n" in source or not source.strip():
        return False
    return source.endswith(".sched") or Path(source).is_file()


def resolve(source: Source, search: Sequence[str | os.PathLike[str]] = ()) -> Resolved:
    """An instance and its family from a path, a ``.sched`` text or an :class:`Instance`.

    A file's family is looked up beside it first, then in ``search``, then among the built-in
    families; a text's or an object's in ``search``, then built-in.
    """
    folders = [Path(s) for s in search]
    if isinstance(source, Instance):
        instance = source
    elif isinstance(source, os.PathLike) or (isinstance(source, str) and is_path_text(source)):
        path = Path(source)
        folders = [path.parent, *folders]
        instance = load_instance(path, folders)
    elif isinstance(source, str):
        if looks_like_family(source):
            raise SchedcError.at("E119", "expected an instance, found a family spec", line=1)
        instance = parse_instance_text(source, "<text>", folders)
    else:
        raise TypeError(f"expected a path, a .sched text or an Instance, not {type(source).__name__}")
    return Resolved(instance, load_family(instance.family, folders), folders)


def import_sources(fmt: str, paths: Sequence[Path], outdir: Path, bks: Path | None = None,
                   cases: Sequence[Path] = ()) -> list[Path]:
    """``schedc import``: convert source files into canonical ``.sched`` files in ``outdir``.

    Every source is imported (and checked) before anything is written, so a bad file
    leaves the output folder untouched.
    """
    return write_instances(import_paths(fmt, paths, bks, cases), outdir)


def format_text(text: str, file: str = "<input>", search: Sequence[Path] = ()) -> str:
    """The canonical form of a ``.sched`` text (instance or family spec), its comments kept
    beside the statements and rows they were written on (:mod:`schedc.lang.comments`)."""
    from schedc.lang.comments import keep_comments

    if looks_like_family(text):
        return keep_comments(text, print_family(parse_family_text(text, file)), file)
    instance = parse_instance_text(text, file, search)
    return keep_comments(text, print_instance(instance, load_family(instance.family, search)), file)



def format_file(path: Path, check: bool = False) -> bool:
    """``schedc fmt``: rewrite ``path`` canonically (or only check); True if it was already canonical."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SchedcError.at("E100", f"cannot read file: {exc}", file=str(path)) from None
    canonical = format_text(text, str(path), [path.parent])
    if canonical == text:
        return True
    if not check:
        write_atomic(path, canonical)
    return False


def to_json(path: Path) -> bytes:
    """``schedc parse --json``: the IR of a file as JSON."""
    return msgspec.json.encode(parse_file(path))


def describe(node: Instance | Family) -> dict[str, Any]:
    """``schedc info``: family, sizes, constraints by kind, reference values."""
    if isinstance(node, Family):
        return {"family_spec": node.name, "structure": node.structure, "objective": node.objective,
                "kinds": list(node.kinds), "classes": [c.name for c in node.classes]}
    sizes: dict[str, int] = {}
    if node.activities:
        sizes["activities"] = len(node.activities)
        sizes["jobs"] = len({a.job for a in node.activities if a.job is not None})
        sizes["modes"] = sum(len(a.modes) for a in node.activities)
    if node.resources:
        sizes["resources"] = len(node.resources)
    if node.calendar is not None:
        sizes["days"] = node.calendar.days
        sizes["periods_per_day"] = node.calendar.periods_per_day
    for cls, count in Counter(e.cls for e in node.entities).items():
        sizes[cls] = count
    by_kind = Counter(kind_name(c) for c in node.constraints)
    hard = sum(1 for c in node.constraints if c.hard and c.active)
    soft = sum(1 for c in node.constraints if not c.hard and c.active)
    meta = msgspec.to_builtins(node.meta)
    meta.pop("span", None)
    return {"name": node.name, "family": node.family, "objective": node.objective.measure, "sizes": sizes,
            "constraints": dict(sorted(by_kind.items())), "hard": hard, "soft": soft,
            "inactive": sum(1 for c in node.constraints if not c.active),
            "meta": {k: v for k, v in meta.items() if v is not None}}


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
    from schedc.verify.verifier import DUPLICATE_POLICIES, Verifier

    if duplicates not in DUPLICATE_POLICIES:
        raise SchedcError.at("E407", f"unknown duplicate policy {duplicates!r}",
                             hint="policies: " + ", ".join(DUPLICATE_POLICIES))
    instance, family, folders = resolve(spec, search)
    return Verifier(instance, family, shown_names(instance, family, folders, variant, seed, names),
                    duplicates)  # type: ignore[arg-type]


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
        if target not in verifiers:
            names, variant, seed, duplicates = reading
            verifiers[target] = verifier_for(target, names, variant, seed, duplicates=duplicates)
        return {"id": record_id, **msgspec.to_builtins(verifiers[target].check(record["answer"]))}
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


def solve_file(spec: Source, backend: str = "cpsat", time_limit: float = 10.0, workers: int = 2, seed: int = 0,
               progress: Any = None, solver: str | None = None, variant: str | None = None,
               variant_seed: int = 42, search: Sequence[str | os.PathLike[str]] = (),
               explain: float | None = None,
               hint: str | os.PathLike[str] | None = None) -> tuple[SolveResult, str | None]:
    """``schedc solve``: (SolveResult, answer text in the family's format or None).

    ``solver`` names the solver of a backend that offers a choice (pyomo: any installed
    Pyomo MILP solver, default HiGHS); a backend without a choice rejects it. With
    ``variant``, the answer uses the display names of that rendering (as a model answering
    that prompt would), so ``schedc check --variant`` reads it back. With ``explain`` (a time
    budget in seconds), an infeasible result carries the hard constraints that cannot hold
    together (``result.conflict``, :mod:`schedc.backends.cpsat.explain`). ``hint`` is an answer
    file (a published or previous solution, in the names of ``variant``) that seeds the search
    (:func:`read_hint`): CP-SAT's solution hint, HiGHS's MIP start, both with ``auto``.
    """
    from schedc.backends import get_backend
    from schedc.verify.verifier import Verifier

    instance, family, folders = resolve(spec, search)
    module = get_backend(backend)
    start = None
    if hint is not None:
        start = read_hint(Path(hint), instance, family, shown_names(instance, family, folders, variant, variant_seed))
    params: dict[str, Any] = {"time_limit": time_limit, "workers": workers, "seed": seed}
    if solver is not None:
        if "solver" not in module.SolveOptions.__struct_fields__:
            raise SchedcError.at("E505", f"the {backend} backend has no solver choice (got --solver {solver})",
                                 hint="--solver picks the MILP solver of --backend pyomo")
        params["solver"] = solver
    result = module.solve(instance, family, module.SolveOptions(**params), progress,
                          **({"start": start} if start is not None else {}))
    if result.status == "infeasible" and explain is not None and explain > 0:
        from schedc.backends.cpsat.explain import explain_infeasibility

        result = msgspec.structs.replace(result, conflict=explain_infeasibility(instance, family, explain, seed))
    names = shown_names(instance, family, folders, variant, variant_seed)
    answer = Verifier(instance, family, names).write(result.solution) if result.solution is not None else None
    return result, answer


def read_hint(path: Path, instance: Instance, family: Family, names: Mapping[str, str] | None = None) -> Solution:
    """The decisions of an answer file (text lines in the family's answer format), checked by the
    verifier: a hint must extract, cover every assignment and be feasible (a SchedcError saying
    what is wrong otherwise)."""
    from schedc.verify.answers import extract
    from schedc.verify.evaluate import evaluate
    from schedc.verify.verifier import Issue, Verifier

    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise SchedcError.at("E506", f"cannot read the hint {path}: {exc.strerror or exc}", file=str(path)) from exc
    verifier = Verifier(instance, family, names)
    extraction = extract(text, verifier.format)
    issues: list[Issue] = []
    solution = verifier.decisions(extraction, issues) if extraction.ok else None
    problem = None
    if solution is None:
        problem = "no answer line could be read"
    elif issues:
        problem = f"{len(issues)} structural issues, first: {issues[0].message}"
    elif (covered := verifier.coverage(solution))[0] < covered[1]:
        problem = f"{covered[0]} of {covered[1]} assignments given"
    elif not (evaluation := evaluate(verifier.ctx, solution)).feasible:
        problem = f"{len(evaluation.violations)} hard violations"
    if problem is not None or solution is None:
        raise SchedcError.at("E506", f"the hint {path} is not a complete feasible answer ({problem})", file=str(path),
                             hint=f"`schedc check` lists what is wrong with {path.name}")
    return solution


def emit_cpsat(spec: Source, out: Path) -> None:
    """``schedc emit cpsat``: write the CP-SAT model (text proto for ``.txt``/``.pbtxt``, binary otherwise)."""
    from schedc.backends.cpsat import CpsatModel

    instance, family, _ = resolve(spec)
    model = CpsatModel(instance, family)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp{out.suffix}")
    if not model.model.export_to_file(str(tmp)):
        raise SchedcError.at("E502", f"cannot write the model to {out}")
    tmp.replace(out)


MILP_FORMATS = ("lp", "mps")


def emit_milp(spec: Source, out: Path, fmt: str = "lp") -> None:
    """``schedc emit lp|mps``: write the MILP of an instance with symbolic names (rows of
    constraint ``ID`` are ``c_ID(k)``, assignments ``x(agent_day_period_value)``, starts ``S(activity)``)
    through its Pyomo model and Pyomo's writers (``backends/pyomo/pyomo_store.py`` says why)."""
    from schedc.backends.pyomo import build_model

    if fmt not in MILP_FORMATS:
        raise SchedcError.at("E502", f"unknown MILP file format {fmt!r}", hint="formats: " + ", ".join(MILP_FORMATS))
    instance, family, _ = resolve(spec)
    model = build_model(instance, family, store="pyomo")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    try:
        model.model.write(str(tmp), format=fmt, io_options={"symbolic_solver_labels": True})
    except (OSError, ValueError) as exc:
        tmp.unlink(missing_ok=True)
        raise SchedcError.at("E502", f"cannot write the model to {out}: {exc}") from None
    tmp.replace(out)


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
        raise SchedcError.at("E406", f"cannot state the answer format: {exc}", file=_where(spec)) from None


def _where(source: Source) -> str:
    """The file name a diagnostic about ``source`` shows."""
    if isinstance(source, Instance):
        return f"<instance {source.name}>"
    if isinstance(source, str) and not is_path_text(source):
        return "<text>"
    return str(source)
