"""The closed choices of command-line options, as Enums (Typer lists them in ``--help`` and
rejects anything else before a command runs). Each mirrors a registry of the library; a test
holds them equal (``tests/test_cli_options.py``)."""

from __future__ import annotations

from enum import Enum, StrEnum


class Variant(StrEnum):
    """Surface variants of a rendering (:data:`schedc.render.model.VARIANTS`)."""

    v1 = "v1"
    v2 = "v2"
    v3a = "v3a"
    v3b = "v3b"
    v4 = "v4"


class Backend(StrEnum):
    """Solver backends (:data:`schedc.backends.BACKENDS`)."""

    cpsat = "cpsat"
    pyomo = "pyomo"
    auto = "auto"


class GrammarFormat(StrEnum):
    """Answer-format outputs (:data:`schedc.grammars.FORMATS`)."""

    text = "text"
    lark = "lark"
    gbnf = "gbnf"
    json_schema = "json-schema"


class Duplicates(StrEnum):
    """What a repeated assignment is in ``check`` (:data:`schedc.verify.verifier.DUPLICATE_POLICIES`)."""

    error = "error"
    warn = "warn"


def choice_value(choice: Enum | None) -> str | None:
    """The string of a choice (None stays None)."""
    return None if choice is None else str(choice.value)


class Lines(StrEnum):
    """How many lines a Lark or GBNF grammar allows (``schedc grammar --lines``, ``bench run --lines``)."""

    any = "any"
    exact = "exact"


class PlotView(StrEnum):
    """What ``schedc plot`` draws (:data:`schedc.dynamic.api.PLOT_VIEWS`)."""

    machines = "machines"
    jobs = "jobs"
    timeline = "timeline"


class PerturbMode(StrEnum):
    """How ``schedc perturb`` changes an instance (:data:`schedc.variants.perturb.MODES`)."""

    boundary = "boundary"
    sat = "sat"


class ImportFormat(StrEnum):
    """Canonical source formats of ``schedc import`` (:data:`schedc.importers.ALL_FORMATS`)."""

    jsplib = "jsplib"
    fjsp = "fjsp"
    psplib_sm = "psplib-sm"
    psplib_mm = "psplib-mm"
    psplib_sm_due = "psplib-sm-due"
    psplib_mm_due = "psplib-mm-due"
    itc2007 = "itc2007"
    itc2007_exam = "itc2007-exam"
    inrc2010 = "inrc2010"
    mspsp = "mspsp"
    nsplib = "nsplib"


class ClassicScheme(StrEnum):
    """Random schemes of ``schedc generate-classic`` (:data:`schedc.generators.SCHEMES`)."""

    wt = "wt"
    sdst = "sdst"


class Executor(StrEnum):
    """Where parallel work runs (:data:`schedc.bench.executor.EXECUTORS`)."""

    local = "local"
    dask = "dask"


class Selection(StrEnum):
    """The instance selections of ``bench build`` (:data:`schedc.bench.selection.SELECTIONS`)."""

    schedbench = "schedbench"
    ablation = "ablation"
    seed = "seed"


class Order(StrEnum):
    """The 'first 100' order of ``bench build`` (:data:`schedc.bench.selection.ORDERS`)."""

    natural = "natural"
    lexicographic = "lexicographic"


class AnswerMode(StrEnum):
    """What a ``bench build`` prompt asks for (:data:`schedc.bench.solver_code.ANSWER_MODES`)."""

    text = "text"
    solver_code = "solver-code"


class Decoding(StrEnum):
    """Decoding modes of ``bench run`` (:data:`schedc.bench.decoding.DECODINGS`)."""

    free = "free"
    json_schema = "json-schema"
    grammar = "grammar"


class Server(StrEnum):
    """Request dialects of ``bench run`` (:data:`schedc.bench.decoding.SERVERS`)."""

    vllm = "vllm"
    llama_cpp = "llama.cpp"
    openai = "openai"


class RunGrammarFormat(StrEnum):
    """Grammar formats ``bench run --decoding grammar`` sends (:data:`schedc.bench.decoding.GRAMMAR_FORMATS`)."""

    gbnf = "gbnf"
    lark = "lark"


class CalibrationMethod(StrEnum):
    """Calibrators of ``schedc calibrate --method`` (:data:`schedc.dynamic.batch.CALIBRATION_METHODS`)."""

    sesc = "sesc"
    baseline = "baseline"
    moo = "moo"
    hybrid = "hybrid"


class OperatorFamily(StrEnum):
    """SESC operator families of ``schedc calibrate --without`` (:data:`schedc.dynamic.calibrate.OPERATOR_FAMILIES`)."""

    arrival = "arrival"
    processing = "processing"
    slack = "slack"
    bottleneck = "bottleneck"
    imbalance = "imbalance"
