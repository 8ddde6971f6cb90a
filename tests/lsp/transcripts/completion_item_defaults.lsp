# LSP 3.17 itemDefaults.editRange, as VS Code and Neovim advertise it (was test_features.py):
# the range shared by every item is sent once, and items carry textEditText, not textEdit.
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
    lay
%end
--> {"id": 1, "method": "initialize", "params": {"processId": null, "rootUri": "${ROOT_URI}",
     "capabilities": {"textDocument": {"completion": {"completionList": {
       "itemDefaults": ["commitCharacters", "editRange"]}}}}}}
<-- {"id": 1}
--> {"method": "initialized", "params": {}}
%open configs/quant.yaml
<-- {"method": "opscope/status", "params": {"state": "ready"}}
--> {"id": 2, "method": "textDocument/completion", "params": {
     "textDocument": {"uri": "${ROOT_URI}/configs/quant.yaml"},
     "position": {"line": 8, "character": 7}}}
<-- {"id": 2, "result": {
      "itemDefaults": {"editRange": {"start": {"line": 8, "character": 4},
                                     "end": {"line": 8, "character": 7}}},
      "items": {"$contains": [{"label": "layer1.0.conv1", "textEdit": "$absent",
                               "textEditText": "layer1\\.0\\.conv1"}]}}}
