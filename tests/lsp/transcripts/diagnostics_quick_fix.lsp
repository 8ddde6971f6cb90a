# A pattern that matches nothing (was test_features.py): one warning on that key naming the
# nearest real names, a preferred quick fix per name that replaces the key, and a fixed config
# re-published without the warning.
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
<-- {"id": 1, "result": {"capabilities": {"codeActionProvider": {}}}}
--> {"method": "initialized", "params": {}}
%open configs/quant.yaml
<-- {"method": "textDocument/publishDiagnostics", "params": {
      "uri": "${ROOT_URI}/configs/quant.yaml", "version": 1, "diagnostics": [
       {"code": "no-match", "severity": 2, "source": "opscope",
        "range": {"start": {"line": 6, "character": 4}, "end": {"line": 6, "character": 12}},
        "message": "`layer9.*` matches no module in the model; did you mean `layer1.*`, `layer2.*`, `layer3.*`?",
        "data": {"replacements": ["layer1.*", "layer2.*", "layer3.*"]}}]}}

--> {"id": 2, "method": "textDocument/codeAction", "params": {
     "textDocument": {"uri": "${ROOT_URI}/configs/quant.yaml"},
     "range": {"start": {"line": 6, "character": 4}, "end": {"line": 6, "character": 12}},
     "context": {"diagnostics": [{"code": "no-match", "severity": 2, "source": "opscope",
       "range": {"start": {"line": 6, "character": 4}, "end": {"line": 6, "character": 12}},
       "message": "`layer9.*` matches no module in the model; did you mean `layer1.*`, `layer2.*`, `layer3.*`?",
       "data": {"replacements": ["layer1.*", "layer2.*", "layer3.*"]}}]}}}
<-- {"id": 2, "result": [
      {"title": "Replace with `layer1.*`", "kind": "quickfix", "isPreferred": true, "edit": {"changes": {
        "${ROOT_URI}/configs/quant.yaml": [
         {"range": {"start": {"line": 6, "character": 4}, "end": {"line": 6, "character": 12}},
          "newText": "layer1.*"}]}}},
      {"title": "Replace with `layer2.*`", "kind": "quickfix", "isPreferred": "$absent",
       "edit": {"changes": {"${ROOT_URI}/configs/quant.yaml": [{"newText": "layer2.*"}]}}},
      {"title": "Replace with `layer3.*`", "kind": "quickfix", "isPreferred": "$absent",
       "edit": {"changes": {"${ROOT_URI}/configs/quant.yaml": [{"newText": "layer3.*"}]}}}]}

# layer9 -> layer4: re-published, and nothing is flagged any more.
%change configs/quant.yaml 3
quantization_config:
  global_config:
    op_state_spec: {}
  module_name_configs:
    "layer1\\..*":
      op_state_spec: {}
    layer4.*:
      op_state_spec: {}
%end
<-- {"method": "textDocument/publishDiagnostics", "params": {
      "uri": "${ROOT_URI}/configs/quant.yaml", "version": 3,
      "diagnostics": {"$excludes": [{"code": "no-match"}]}}}
