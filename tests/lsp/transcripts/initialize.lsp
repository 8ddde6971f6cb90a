# The handshake: what the server offers, whatever the client (the editors rely on each of
# these), and the model it finds for a config through opscope.yaml.
%file opscope.yaml
model: ${FIXTURES}/resnet18.index.json
%end
%file configs/quant.yaml
quantization_config:
  global_config:
    op_state_spec: {}
%end
--> {"id": 0, "method": "textDocument/hover", "params": {
     "textDocument": {"uri": "${ROOT_URI}/configs/quant.yaml"},
     "position": {"line": 0, "character": 0}}}
<-- {"id": 0, "error": {"code": -32002}}
--> {"id": 1, "method": "initialize", "params": {"processId": null, "rootUri": "${ROOT_URI}",
     "capabilities": {}}}
<-- {"id": 1, "result": {
      "serverInfo": {"name": "opscope"},
      "capabilities": {
       "positionEncoding": "utf-16",
       "textDocumentSync": {"openClose": true, "change": 2, "save": {"includeText": false}},
       "completionProvider": {"resolveProvider": false,
                              "triggerCharacters": ["\"", "'", ".", " "]},
       "hoverProvider": true,
       "definitionProvider": true,
       "codeActionProvider": {"codeActionKinds": ["quickfix", "refactor.rewrite"]},
       "codeLensProvider": {"resolveProvider": false},
       "executeCommandProvider": {"commands": ["opscope.showSummary", "opscope.reloadModel",
                                               "opscope.trustProject"]},
       "workspace": {"workspaceFolders": {"supported": true}}}}}
--> {"method": "initialized", "params": {}}
%open configs/quant.yaml
<-- {"method": "opscope/status", "params": {"state": "loading",
      "model": "${FIXTURES}/resnet18.index.json"}}
<-- {"method": "opscope/status", "params": {"state": "ready", "ops": 69,
      "model": "${FIXTURES}/resnet18.index.json"}}
<-- {"method": "textDocument/publishDiagnostics", "params": {
      "uri": "${ROOT_URI}/configs/quant.yaml", "version": 1, "diagnostics": []}}
