# coreai-opt's models in a training script (issue 11): a wrong dtype in a class call is an error at
# the string with a fix that keeps it a string, an unknown keyword names the nearest field,
# `torch.int4` is not checked; inside `QuantizationSpec(` completion offers the keywords left
# with their docs, inside `dtype="` the dtypes as Python strings; hover on a keyword explains it.
%file opscope.yaml
model: ${FIXTURES}/resnet18.index.json
%end
%file train.py
import torch
from coreai_opt.quantization import QuantizerConfig, ModuleQuantizerConfig, QuantizationSpec
from coreai_opt.quantization.spec.granularity import PerChannelGranularity

config = QuantizerConfig(
    global_config=ModuleQuantizerConfig(
        op_state_spec={"weight": QuantizationSpec(dtype="int9", granularity=PerChannelGranularity(axs=0))}),
    module_name_configs={"fc": ModuleQuantizerConfig(op_state_spec={"weight": QuantizationSpec(dtype=torch.int4)})},
)
%end
--> {"id": 1, "method": "initialize", "params": {"processId": null, "rootUri": "${ROOT_URI}",
     "capabilities": {}}}
<-- {"id": 1, "result": {"capabilities": {"completionProvider": {}, "hoverProvider": true}}}
--> {"method": "initialized", "params": {}}
%open train.py
<-- {"method": "textDocument/publishDiagnostics", "params": {
      "uri": "${ROOT_URI}/train.py", "version": 1, "diagnostics": {"$items": [2, 2], "$contains": [
       {"code": "schema-value", "severity": 1,
        "range": {"start": {"line": 6, "character": 56}, "end": {"line": 6, "character": 62}},
        "message": {"$has": ["`int4`", "got the string `int9`"]},
        "data": {"replacements": {"$contains": ["\"int4\""]}}},
       {"code": "schema-unknown-key", "severity": 1,
        "range": {"start": {"line": 6, "character": 98}, "end": {"line": 6, "character": 101}},
        "message": {"$has": ["`axs`", "`axis`"]}}]}}}

# Hover on the keyword `dtype`: coreai-opt's docstring and the default.
--> {"id": 2, "method": "textDocument/hover", "params": {
     "textDocument": {"uri": "${ROOT_URI}/train.py"},
     "position": {"line": 6, "character": 52}}}
<-- {"id": 2, "result": {"contents": {"kind": "markdown", "value": {
      "$has": ["**dtype**", "Target data type", "Default when left out"]}}}}

# Typing a keyword in a spec call that is not closed yet.
%change train.py 2
import torch
from coreai_opt.quantization import QuantizerConfig, ModuleQuantizerConfig, QuantizationSpec

config = QuantizerConfig(
    global_config=ModuleQuantizerConfig(
        op_state_spec={"weight": QuantizationSpec(qscheme="asymmetric", gr
%end
--> {"id": 3, "method": "textDocument/completion", "params": {
     "textDocument": {"uri": "${ROOT_URI}/train.py"},
     "position": {"line": 5, "character": 74}}}
<-- {"id": 3, "result": {"items": {"$contains": [
      {"label": "granularity", "kind": 10, "documentation": {"value": {"$has": ["**granularity**"]}},
       "textEdit": {"range": {"start": {"line": 5, "character": 72},
                              "end": {"line": 5, "character": 74}},
                    "newText": "granularity="}},
      {"label": "dtype", "textEdit": {"newText": "dtype="}}],
      "$excludes": [{"label": "qscheme"}]}}}

# The value of dtype, inside the string being typed.
%change train.py 3
import torch
from coreai_opt.quantization import QuantizerConfig, ModuleQuantizerConfig, QuantizationSpec

spec = QuantizationSpec(dtype="in
%end
--> {"id": 4, "method": "textDocument/completion", "params": {
     "textDocument": {"uri": "${ROOT_URI}/train.py"},
     "position": {"line": 3, "character": 33}}}
<-- {"id": 4, "result": {"items": {"$contains": [
      {"label": "int4", "kind": 12,
       "textEdit": {"range": {"start": {"line": 3, "character": 30},
                              "end": {"line": 3, "character": 33}},
                    "newText": "\"int4\""}}],
      "$excludes": [{"label": "int9"}, {"label": "float32"}]}}}
