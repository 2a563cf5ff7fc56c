"""The commands as library functions: what ``schedc`` runs behind each command.

A stage (see ``tests/test_import_graph.py``). Takes in paths, texts and IR instances; gives out
written files, reports and solver results by calling the stages below (language, importers,
verification, renderings, grammars, backends). Imported by the variants, benchmarks, dynamic shops,
the CLI and the public API; imports none of them.
"""

from schedc.lang.load import Resolved, Source, is_path_text, load_instance, resolve
from schedc.pipeline.checking import (
    check_answer,
    check_batch,
    decode_answer,
    grammar_file,
    read_answer,
    read_names,
    render_file,
    shown_names,
    verifier_for,
)
from schedc.pipeline.files import describe, format_file, format_text, import_sources, to_json
from schedc.pipeline.solving import MILP_FORMATS, emit_cpsat, emit_milp, read_hint, solve_file

__all__ = ["MILP_FORMATS", "Resolved", "Source", "check_answer", "check_batch", "decode_answer", "describe",
           "emit_cpsat", "emit_milp", "format_file", "format_text", "grammar_file", "import_sources", "is_path_text",
           "load_instance", "read_answer", "read_hint", "read_names", "render_file", "resolve", "shown_names",
           "solve_file", "to_json", "verifier_for"]
