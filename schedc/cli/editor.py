"""``schedc lsp``: the language server for editors (stdio).

Registered on the main application by :mod:`schedc.cli`; a thin call of :mod:`schedc.editor.server`.
"""

from __future__ import annotations

from typing import Annotated

import typer

from schedc.cli.application import app, echo_json, reports_errors

FEATURES = ("diagnostics", "hover", "completion", "definition", "formatting")


@app.command("lsp", epilog="Example: schedc lsp   (started by the editor; see editors/README.md)")
@reports_errors
def lsp_cmd(
    as_json: Annotated[bool, typer.Option("--json", help="print the server's name, version and features, "
                                                         "and exit without serving")] = False,
) -> None:
    """Serve the Language Server Protocol over stdio for .sched files (needs the extra: pip install 'schedc\\[lsp]')."""
    from schedc.editor.server import serve, server

    if as_json:
        echo_json({"server": server.name, "version": server.version, "transport": "stdio",
                   "features": list(FEATURES)})
        return
    serve()
