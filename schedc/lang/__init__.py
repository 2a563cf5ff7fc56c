"""The ``.sched`` language: reading, checking and writing specs.

Takes in ``.sched`` text (instances and family specs); gives out the typed IR (:mod:`schedc.ir`)
after the semantic pass, and canonical text back (the printer, ``schedc fmt`` with its comments).
Holds the Lark grammar loading, the parsers, the typed parameters and tables, the semantic pass
with each kind's checks, syntax errors people can act on, and the data folders shipped with the
package. Imports only :mod:`schedc.core`, :mod:`schedc.kinds` and :mod:`schedc.ir`.
"""
