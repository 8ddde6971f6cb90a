# A keystroke sent as a ranged change in the middle of a key (was test_features.py): the
# diagnostics of that version and the hover see the edited text.
%file opscope.yaml
model: ${FIXTURES}/resnet18.index.json
%end
%file configs/quant.yaml
quantization_config:
  global_config:
    op_state_spec: {}
  module_name_configs:
    "layer1\\..*":
      op_state_spec: {}
    layer9.*:
      op_state_spec: {}
%end
--> {"id": 1, "method": "initialize", "params": {"processId": null, "rootUri": "${ROOT_URI}",
     "capabilities": {}}}
<-- {"id": 1}
--> {"method": "initialized", "params": {}}
%open configs/quant.yaml
<-- {"method": "textDocument/publishDiagnostics", "params": {
      "diagnostics": {"$contains": [{"code": "no-match"}]}}}

# The "9" of layer9.* becomes "3".
--> {"method": "textDocument/didChange", "params": {
     "textDocument": {"uri": "${ROOT_URI}/configs/quant.yaml", "version": 5},
     "contentChanges": [{"range": {"start": {"line": 6, "character": 9},
                                   "end": {"line": 6, "character": 10}}, "text": "3"}]}}
<-- {"method": "textDocument/publishDiagnostics", "params": {"version": 5,
      "diagnostics": {"$excludes": [{"code": "no-match"}]}}}
--> {"id": 2, "method": "textDocument/hover", "params": {
     "textDocument": {"uri": "${ROOT_URI}/configs/quant.yaml"},
     "position": {"line": 6, "character": 6}}}
<-- {"id": 2, "result": {"contents": {"value": {"$has": ["layer3"]}}}}
