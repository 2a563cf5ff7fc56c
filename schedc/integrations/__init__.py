"""Bridges to the tools people run evaluations and write code in.

Stage 18, above the command line (see ``tests/test_import_graph.py``): nothing in schedc imports
this package. Takes in a built benchmark (``schedc bench build``) and an outside framework's
objects; gives out that framework's tasks, solvers and scorers, built from schedc's library
functions (the dataset records, the answer grammars, the verifier). Each module needs its
framework as an optional extra and says so when it is missing:

* :mod:`schedc.integrations.inspect` — an Inspect AI task (``pip install 'schedc[inspect]'``).
* :mod:`schedc.integrations.lm_eval` — an lm-evaluation-harness task (``pip install 'schedc[lm-eval]'``).
* :mod:`schedc.integrations.records` — what they share: records, verifiers, a report as plain data.
"""
