"""Dynamic flexible job shop (DynaSched-style): generation, metrics, calibration, simulation.

The in-memory model is :class:`schedc.dynamic.world.World`: the *realised* plant, jobs,
outages and timed events of one instance. A world converts to an ordinary ``dfjsp``
``.sched`` instance (:mod:`schedc.dynamic.spec`) and back, so generated instances are
solved, rendered and checked like every other family.
"""
