"""The vocabulary every stage shares: the one error type with its diagnostics, and a schedule's decisions.

Takes in nothing of schedc; gives out :class:`~schedc.core.diagnostics.SchedcError` (with the
formatter of ``file:line:col`` reports) and :class:`~schedc.core.solution.Solution`. Imports no
other schedc package: it is the lowest stage.
"""
