"""Generators of classic literature instances that cannot be fetched here, written as ``.sched`` files.

A stage (see ``tests/test_import_graph.py``). Takes in a scheme, its parameters and a seed; gives out
IR instances. Imports the language and everything below it; never verification, renderings or backends.

Each scheme draws every number from one ``random.Random`` seeded with a string that names the scheme,
its parameters and the seed, so an instance depends on nothing else (``docs/generators.md``).
"""

from schedc.generators.classic import SCHEMES, SdstParams, WtParams, generate, sdst_instance, wt_instance

__all__ = ["SCHEMES", "SdstParams", "WtParams", "generate", "sdst_instance", "wt_instance"]
