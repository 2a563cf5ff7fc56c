"""Search outside the solvers: the timetable annealing (with its compiled kernel), job-shop tabu
search and serial construction heuristics.

Part of the backends' stage. Takes in an instance with its evaluation context; gives out schedules
(as :class:`~schedc.core.solution.Solution`) that the CP-SAT and MILP backends use as starts and hints.
Imports the stages below the backends (core, kinds, ir, lang, verify); never a solver backend.
"""
