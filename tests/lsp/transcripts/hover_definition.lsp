# Hover and go-to-definition on a pattern key, against the committed ResNet-18 index (was
# test_features.py): the matched ops, each with a link to the user's own source line, never
# into PyTorch.
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
<-- {"id": 1, "result": {"capabilities": {"hoverProvider": true, "definitionProvider": true}}}
--> {"method": "initialized", "params": {}}
%open configs/quant.yaml
<-- {"method": "opscope/status", "params": {"state": "ready"}}

--> {"id": 2, "method": "textDocument/hover", "params": {
     "textDocument": {"uri": "${ROOT_URI}/configs/quant.yaml"},
     "position": {"line": 4, "character": 8}}}
<-- {"id": 2, "result": {"contents": {"kind": "markdown", "value": {
      "$has": ["layer1\\..*", "ops", "conv2d", "layer1.0.conv1", "[resnet_model.py:"],
      "$lacks": ["conv.py"]}}}}

--> {"id": 3, "method": "textDocument/definition", "params": {
     "textDocument": {"uri": "${ROOT_URI}/configs/quant.yaml"},
     "position": {"line": 4, "character": 8}}}
<-- {"id": 3, "result": {"$items": [1, 1000],
     "$all": {"uri": {"$regex": "^file:///.*/resnet_model\\.py$", "$lacks": ["/torch/"]}}}}

# On a field key: coreai-opt's own documentation of it (core/dialects/coreai/schema).
--> {"id": 4, "method": "textDocument/hover", "params": {
     "textDocument": {"uri": "${ROOT_URI}/configs/quant.yaml"},
     "position": {"line": 1, "character": 3}}}
<-- {"id": 4, "result": {"contents": {"kind": "markdown", "value": {
      "$has": ["global_config", "ModuleQuantizerConfig"], "$lacks": ["ops"]}}}}

# In the indentation, on nothing: no hover.
--> {"id": 40, "method": "textDocument/hover", "params": {
     "textDocument": {"uri": "${ROOT_URI}/configs/quant.yaml"},
     "position": {"line": 2, "character": 1}}}
<-- {"id": 40, "result": null}

# On the root key: what the config does, entry by entry (coreai-opt's resolution).
# The check computes the resolution off the request thread and hover only reads it, so wait
# for the check's diagnostics with the model loaded (layer9.* matches nothing): without this
# wait the hover raced the check under load.
<-- {"method": "textDocument/publishDiagnostics", "params": {
      "uri": "${ROOT_URI}/configs/quant.yaml",
      "diagnostics": {"$contains": [{"code": "no-match"}]}}}
--> {"id": 5, "method": "textDocument/hover", "params": {
     "textDocument": {"uri": "${ROOT_URI}/configs/quant.yaml"},
     "position": {"line": 0, "character": 3}}}
<-- {"id": 5, "result": {"contents": {"kind": "markdown", "value": {
      "$has": ["69 ops annotated by the Quantizer", "| `global_config` | 2 | 55 |",
               "| `layer1\\..*` | 5 | 14 |"]}}}}
