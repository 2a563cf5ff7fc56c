"""Snapshot testing of renderings: what a spec's prompts, claims and answer grammars say, stored and compared.

Takes in ``.sched`` instances (files or folders, user families included) and options (variants, seeds,
grammar formats, a reference solve); gives out one snapshot file per spec (canonical, line-oriented
JSON: :mod:`~schedc.snapshot.store`) and, against a stored one, the changes meaning first — claims
and data, then the sentences of each rendering, then the grammars (:mod:`~schedc.snapshot.diff`,
:mod:`~schedc.snapshot.report`). ``schedc snapshot update|check`` (:mod:`schedc.cli.snapshot`) and the
pytest fixture ``schedc_snapshot`` (:mod:`schedc.testing`) are thin layers over it. Guide:
``docs/snapshots.md``.

A stage of its own just above :mod:`schedc.pipeline` (see ``tests/test_import_graph.py``): it imports the
language, the renderings, the grammars, the backends and the pipeline; only the CLI and :mod:`schedc.testing`
import it.
"""

from __future__ import annotations

from schedc.snapshot.diff import Hunk, SpecDiff, TextChange, compare
from schedc.snapshot.document import DEFAULT_SEEDS, DEFAULT_VARIANTS, FORMAT_VERSION, Options, observe, options
from schedc.snapshot.report import check_lines, spec_lines
from schedc.snapshot.run import Given, Written, check, find, update
from schedc.snapshot.store import SUFFIX, dumps, loads

__all__ = ["DEFAULT_SEEDS", "DEFAULT_VARIANTS", "FORMAT_VERSION", "SUFFIX", "Given", "Hunk", "Options", "SpecDiff",
           "TextChange", "Written", "check", "check_lines", "compare", "dumps", "find", "loads", "observe",
           "options", "spec_lines", "update"]
