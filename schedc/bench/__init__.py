"""SCHEDBench: build the benchmark dataset, validate it with CP-SAT, query models, evaluate answers.

See DESIGN.md §6. ``schedc bench build|validate|run|eval`` are thin layers over
:mod:`schedc.bench.build`, :mod:`schedc.bench.validate`, :mod:`schedc.bench.run` and
:mod:`schedc.bench.evaluate`.
"""
