"""Natural-language renderings of instances in five variants with a machine-checked fact ledger.

A stage (see ``tests/test_import_graph.py``). Takes in an instance, its family, a variant and a seed;
gives out the prompt, the display names and the claims. Imports the stages below (core, kinds, ir,
lang, verify); never grammars, backends, or anything that runs a solver.

``render(instance, family, variant, seed)`` gives a :class:`Rendering` (system prompt,
background, statements, response format, display names); ``display_names`` the names a
variant shows (and the verifier must read back); ``facts`` every fact an instance states.
See DESIGN.md §4.
"""

from __future__ import annotations

from schedc.render.engine import display_names, render
from schedc.render.facts import FactId, Facts, facts
from schedc.render.model import DEFAULT_SEED, VARIANTS, Rendering, Statement, printed_numbers, variant

__all__ = ["DEFAULT_SEED", "VARIANTS", "FactId", "Facts", "Rendering", "Statement", "display_names", "facts",
           "printed_numbers", "render", "variant"]
