# Completion against the committed ResNet-18 index (was test_features.py): module names for a
# new module_name_configs key, op types limited to what the compressor registers, a config
# broken above the cursor, and the list capped with isIncomplete.
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
<-- {"id": 1, "result": {"capabilities": {"completionProvider": {}}}}
--> {"method": "initialized", "params": {}}
%open configs/quant.yaml
<-- {"method": "opscope/status", "params": {"state": "ready"}}

# A new key under module_name_configs: "lay" typed at line 8.
%change configs/quant.yaml 2
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
--> {"id": 2, "method": "textDocument/completion", "params": {
     "textDocument": {"uri": "${ROOT_URI}/configs/quant.yaml"},
     "position": {"line": 8, "character": 7}}}
<-- {"id": 2, "result": {"items": {"$contains": [
      {"label": "layer1.0.conv1", "detail": "torch.nn.modules.conv.Conv2d",
       "textEdit": {"range": {"start": {"line": 8, "character": 4},
                              "end": {"line": 8, "character": 7}},
                    "newText": "layer1\\.0\\.conv1"}}]}}}

# Op types: the compressible ones only, each with its count (ResNet-18 has 20 convolutions).
%change configs/quant.yaml 3
quantization_config:
  global_config:
    op_type_config:
      
%end
--> {"id": 3, "method": "textDocument/completion", "params": {
     "textDocument": {"uri": "${ROOT_URI}/configs/quant.yaml"},
     "position": {"line": 3, "character": 6}}}
<-- {"id": 3, "result": {"items": {
      "$contains": [{"label": "conv2d", "detail": {"$regex": "^20 "}}, {"label": "linear"}],
      "$excludes": [{"label": "relu"}]}}}

# Op names: never more than the list's cap of 100.
%change configs/quant.yaml 4
quantization_config:
  global_config:
    op_name_config:
      
%end
--> {"id": 4, "method": "textDocument/completion", "params": {
     "textDocument": {"uri": "${ROOT_URI}/configs/quant.yaml"},
     "position": {"line": 3, "character": 6}}}
<-- {"id": 4, "result": {"items": {"$items": [1, 100]}}}

# An unterminated quote and a missing colon above the cursor still complete.
%change configs/quant.yaml 5
quantization_config:
  module_name_configs:
    "layer1\\..*
    layer2 
    "lay
%end
--> {"id": 5, "method": "textDocument/completion", "params": {
     "textDocument": {"uri": "${ROOT_URI}/configs/quant.yaml"},
     "position": {"line": 4, "character": 8}}}
<-- {"id": 5, "result": {"items": {"$contains": [{"label": "layer1.0.conv1"}]}}}
