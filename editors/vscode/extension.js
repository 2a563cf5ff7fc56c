// Starts `schedc lsp` (stdio) for .sched documents.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const [command, ...args] = vscode.workspace.getConfiguration("sched").get("server.command");
  client = new LanguageClient(
    "schedc",
    "schedc",
    { command, args },
    { documentSelector: [{ scheme: "file", language: "sched" }] },
  );
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
