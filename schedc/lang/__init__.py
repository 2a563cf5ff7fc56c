"""The ``.sched`` language: reading, checking and writing specs.

A stage (see ``tests/test_import_graph.py``). Takes in ``.sched`` text (instances and family specs);
gives out the typed IR (:mod:`schedc.ir`) after the semantic pass, and canonical text back (the
printer; ``schedc fmt`` with its comments). Holds the statement reader (Lark, :mod:`~schedc.lang.statements`),
the instance and family parsers, typed parameters and tables, the semantic pass with each kind's checks,
syntax errors people can act on, the data folders shipped with the package, and :mod:`~schedc.lang.load`
(a spec from a path, a text or an instance). Imports only :mod:`schedc.core`, :mod:`schedc.kinds` and
:mod:`schedc.ir`.
"""
