"""The vocabulary every stage shares: the one error type with its diagnostics, a schedule's decisions,
and how names are written in ``.sched`` text.

The lowest stage (see ``tests/test_import_graph.py``). Takes in nothing of schedc; gives out
:class:`~schedc.core.diagnostics.SchedcError` (with the formatter of ``file:line:col`` reports),
:class:`~schedc.core.solution.Solution` and the text literals (:mod:`schedc.core.literals`). Imports
no other schedc package. :mod:`schedc.core.moved` keeps the module paths of the flat layout importable
for one release.
"""
