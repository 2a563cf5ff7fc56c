"""SCHEDBench: build the benchmark dataset, validate it with CP-SAT, query models, evaluate answers.

A stage (see ``tests/test_import_graph.py``). Takes in canonical source folders, model answers and a
server endpoint; gives out datasets, references, responses and reports. Imports every stage below;
never dynamic shops or the CLI (the ``bench`` commands live in :mod:`schedc.cli.bench`).

See DESIGN.md §6. ``schedc bench build|validate|run|eval`` are thin layers over
:mod:`schedc.bench.build`, :mod:`schedc.bench.validate`, :mod:`schedc.bench.run` and
:mod:`schedc.bench.evaluate`.
"""
