"""Editor support for ``.sched`` files: the language server behind ``schedc lsp``.

Stage 16, between the dynamic shops and the command line (see ``tests/test_import_graph.py``).
Takes in the text of a ``.sched`` document and a position in it; gives out what an editor shows:
diagnostics with their ranges (the parser's and the semantic pass's, with the CLI's codes), hovers
(a kind's formal meaning, a keyword, a declared name), completions (keywords, kinds, kind parameters,
declared names), the declaration of a name, and the canonical form (``schedc fmt``).

:mod:`schedc.editor.analysis` answers those questions from text alone (no protocol, testable as
plain functions); :mod:`schedc.editor.server` speaks the Language Server Protocol over stdio with
``pygls`` (the optional extra ``lsp``). Imports the language stages below; never the CLI.
"""
