# A training script's config calls (issue 12), against the committed ResNet-18 index: the
# no-match warning on a module_name_configs key, completion of module names inside
# `module_name_configs={"` and `set_module_name("`, of op types inside `op_type_config={"`,
# hover with the matched ops, and nothing for a Python file without a config.
%file opscope.yaml
model: ${FIXTURES}/resnet18.index.json
%end
%file train.py
import torch.nn as nn
from coreai_opt.quantization.config import QuantizerConfig, ModuleQuantizerConfig

config = QuantizerConfig(
    global_config=ModuleQuantizerConfig(op_type_config={"linear": None}),
    module_name_configs={r"layer1\..*": ModuleQuantizerConfig(op_type_config={"conv2d": None}),
                         "layer9.*": None},
    module_type_configs={"torch.nn.modules.linear.Linear": None},
)
config.set_module_name("fc", None).set_module_type(nn.Conv2d, None)
%end
%file util.py
# Converted later with coreai_opt's QuantizerConfig; nothing here is a config.
names = {"layer9": None}
%end
--> {"id": 1, "method": "initialize", "params": {"processId": null, "rootUri": "${ROOT_URI}",
     "capabilities": {}}}
<-- {"id": 1, "result": {"capabilities": {"completionProvider": {}, "hoverProvider": true}}}
--> {"method": "initialized", "params": {}}
%open train.py
<-- {"method": "textDocument/publishDiagnostics", "params": {
      "uri": "${ROOT_URI}/train.py", "version": 1, "diagnostics": [
       {"code": "no-match", "severity": 2, "source": "opscope",
        "range": {"start": {"line": 6, "character": 25}, "end": {"line": 6, "character": 35}},
        "message": {"$has": ["`layer9.*` matches no module in the model", "`layer1.*`"]},
        "data": {"replacements": {"$contains": ["\"layer1.*\""]}}},
       {"code": "overridden", "severity": 2, "source": "opscope",
        "range": {"start": {"line": 7, "character": 25}},
        "message": {"$has": ["`torch.nn.modules.linear.Linear` decides none", "`fc` (line 10)"]}},
       {"code": "partly-overridden", "severity": 3, "source": "opscope",
        "message": {"$has": ["`torch.nn.modules.conv.Conv2d` decides 16 of the 20 ops"]}}]}}

# Hover on the raw-string key: the modules it matches and their ops.
--> {"id": 2, "method": "textDocument/hover", "params": {
     "textDocument": {"uri": "${ROOT_URI}/train.py"},
     "position": {"line": 5, "character": 28}}}
<-- {"id": 2, "result": {"contents": {"kind": "markdown", "value": {
      "$has": ["layer1\\..*", "conv2d", "layer1.0.conv1"]}}}}

# Hover on the class reference nn.Conv2d: read as torch.nn.modules.conv.Conv2d.
--> {"id": 3, "method": "textDocument/hover", "params": {
     "textDocument": {"uri": "${ROOT_URI}/train.py"},
     "position": {"line": 9, "character": 55}}}
<-- {"id": 3, "result": {"contents": {"kind": "markdown", "value": {
      "$has": ["torch.nn.modules.conv.Conv2d", "layer1.0.conv1"]}}}}

# Typing a new key: `module_name_configs={"lay` (the string not closed yet).
%change train.py 2
import torch.nn as nn
from coreai_opt.quantization.config import QuantizerConfig, ModuleQuantizerConfig

config = QuantizerConfig(
    module_name_configs={"lay
%end
--> {"id": 4, "method": "textDocument/completion", "params": {
     "textDocument": {"uri": "${ROOT_URI}/train.py"},
     "position": {"line": 4, "character": 29}}}
<-- {"id": 4, "result": {"items": {"$contains": [
      {"label": "layer1.0.conv1", "detail": "torch.nn.modules.conv.Conv2d",
       "textEdit": {"range": {"start": {"line": 4, "character": 25},
                              "end": {"line": 4, "character": 29}},
                    "newText": "\"layer1\\\\.0\\\\.conv1\""}}]}}}

# In a raw string the same name is written without doubled backslashes; the `r` stays.
%change train.py 3
import torch.nn as nn
from coreai_opt.quantization.config import QuantizerConfig, ModuleQuantizerConfig

config = QuantizerConfig()
config.set_module_name(r"lay", None)
%end
--> {"id": 5, "method": "textDocument/completion", "params": {
     "textDocument": {"uri": "${ROOT_URI}/train.py"},
     "position": {"line": 4, "character": 28}}}
<-- {"id": 5, "result": {"items": {"$contains": [
      {"label": "layer1.0.conv1",
       "textEdit": {"range": {"start": {"line": 4, "character": 24},
                              "end": {"line": 4, "character": 29}},
                    "newText": "\"layer1\\.0\\.conv1\""}}]}}}

# Op types inside op_type_config={" (the editor closed the quote: `{""}`).
%change train.py 4
import torch.nn as nn
from coreai_opt.quantization.config import QuantizerConfig, ModuleQuantizerConfig

config = QuantizerConfig(global_config=ModuleQuantizerConfig(op_type_config={""}))
%end
--> {"id": 6, "method": "textDocument/completion", "params": {
     "textDocument": {"uri": "${ROOT_URI}/train.py"},
     "position": {"line": 3, "character": 78}}}
<-- {"id": 6, "result": {"items": {
      "$contains": [{"label": "conv2d", "detail": {"$regex": "^20 "}}, {"label": "linear"}],
      "$excludes": [{"label": "relu"}]}}}

# Outside a config string opscope offers nothing: the Python extension answers there.
--> {"id": 7, "method": "textDocument/completion", "params": {
     "textDocument": {"uri": "${ROOT_URI}/train.py"},
     "position": {"line": 3, "character": 12}}}
<-- {"id": 7, "result": {"items": {"$items": [0, 0]}}}

# A Python file that mentions coreai-opt only in a comment: no diagnostics, no model needed.
%open util.py
<-- {"method": "textDocument/publishDiagnostics", "params": {
      "uri": "${ROOT_URI}/util.py", "diagnostics": []}}
--> {"id": 8, "method": "textDocument/hover", "params": {
     "textDocument": {"uri": "${ROOT_URI}/util.py"},
     "position": {"line": 1, "character": 10}}}
<-- {"id": 8, "result": null}
