# An entry overridden by a later entry of its own table (issue 10): the `overridden` warning
# carries one quick fix that moves the entry, with its comment and nested block, below the
# entry that takes its ops; applied, the config is re-published without the warning.
%file opscope.yaml
model: ${FIXTURES}/resnet18.index.json
%end
%file configs/quant.yaml
quantization_config:
  global_config:
    op_state_spec: {}
  module_name_configs:
    # the first conv of layer3 stays in full precision
    "layer3\\.0\\.conv1":
      op_state_spec: {weight: null}
    layer3:
      op_state_spec: {}
  module_type_configs: {}
%end
--> {"id": 1, "method": "initialize", "params": {"processId": null, "rootUri": "${ROOT_URI}",
     "capabilities": {}}}
<-- {"id": 1, "result": {"capabilities": {"codeActionProvider": {}}}}
--> {"method": "initialized", "params": {}}
%open configs/quant.yaml
<-- {"method": "textDocument/publishDiagnostics", "params": {
      "uri": "${ROOT_URI}/configs/quant.yaml", "version": 1, "diagnostics": {"$contains": [
       {"code": "overridden", "severity": 2, "data": "$absent",
        "range": {"start": {"line": 5, "character": 4}, "end": {"line": 5, "character": 24}},
        "message": {"$has": ["`layer3` (line 8)"]}}]}}}

--> {"id": 2, "method": "textDocument/codeAction", "params": {
     "textDocument": {"uri": "${ROOT_URI}/configs/quant.yaml"},
     "range": {"start": {"line": 5, "character": 6}, "end": {"line": 5, "character": 6}},
     "context": {"diagnostics": []}}}
<-- {"id": 2, "result": {"$contains": [
      {"title": "Move `layer3\\.0\\.conv1` below `layer3` (line 8) so that it wins",
       "kind": "quickfix", "isPreferred": true, "edit": {"changes": {
        "${ROOT_URI}/configs/quant.yaml": [
         {"range": {"start": {"line": 4, "character": 0}, "end": {"line": 9, "character": 0}},
          "newText": "    layer3:\n      op_state_spec: {}\n    # the first conv of layer3 stays in full precision\n    \"layer3\\\\.0\\\\.conv1\":\n      op_state_spec: {weight: null}\n"}]}}}]}}

# The edit applied: the name key now comes last and wins its conv.
%change configs/quant.yaml 2
quantization_config:
  global_config:
    op_state_spec: {}
  module_name_configs:
    layer3:
      op_state_spec: {}
    # the first conv of layer3 stays in full precision
    "layer3\\.0\\.conv1":
      op_state_spec: {weight: null}
  module_type_configs: {}
%end
<-- {"method": "textDocument/publishDiagnostics", "params": {
      "uri": "${ROOT_URI}/configs/quant.yaml", "version": 2,
      "diagnostics": {"$excludes": [{"code": "overridden"}]}}}
