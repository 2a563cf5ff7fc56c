"""Dynamic flexible job shop (DynaSched-style): generation, metrics, calibration, simulation.

A stage (see ``tests/test_import_graph.py``). Takes in a configuration grid; gives out worlds,
``.sched`` instances, calibration reports, simulations and agent runs. Imports every stage below
(the benchmark runner's client among them); never the CLI.

The in-memory model is :class:`schedc.dynamic.world.World`: the *realised* plant, jobs,
outages and timed events of one instance. A world converts to an ordinary ``dfjsp``
``.sched`` instance (:mod:`schedc.dynamic.spec`) and back, so generated instances are
solved, rendered and checked like every other family.
"""
