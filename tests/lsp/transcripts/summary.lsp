# opscope.showSummary (was test_features.py): the tree of the open config's model, and of a
# config the editor has not opened, read from disk.
%file opscope.yaml
model: ${FIXTURES}/resnet18.index.json
%end
%file configs/quant.yaml
quantization_config:
  global_config:
    op_state_spec: {}
%end
%file configs/other.yaml
quantization_config:
  global_config: {}
%end
--> {"id": 1, "method": "initialize", "params": {"processId": null, "rootUri": "${ROOT_URI}",
     "capabilities": {}}}
<-- {"id": 1, "result": {"capabilities": {"executeCommandProvider": {
      "commands": {"$contains": ["opscope.showSummary"]}}}}}
--> {"method": "initialized", "params": {}}
%open configs/quant.yaml
<-- {"method": "opscope/status", "params": {"state": "ready"}}

--> {"id": 2, "method": "workspace/executeCommand", "params": {
     "command": "opscope.showSummary", "arguments": ["${ROOT_URI}/configs/quant.yaml"]}}
<-- {"id": 2, "result": {"$has": ["layer1", "conv2d"]}}
--> {"id": 3, "method": "workspace/executeCommand", "params": {
     "command": "opscope.showSummary", "arguments": ["${ROOT_URI}/configs/other.yaml"]}}
<-- {"id": 3, "result": {"$has": ["layer4"]}}
# A command the server does not have is refused as invalid params.
--> {"id": 4, "method": "workspace/executeCommand", "params": {"command": "opscope.nope"}}
<-- {"id": 4, "error": {"code": -32602}}
