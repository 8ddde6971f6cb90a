# A training script's config strings and the code around them (issue 12), against the committed
# ResNet-18 index: a name typed as a regex in a raw string, an f-string reported as not checked
# (never guessed), and what opscope answers outside config strings, where the user's Python
# server works beside it: nothing, and never an error (null hover, no definition, no code
# action, an empty completion list).
%file opscope.yaml
model: ${FIXTURES}/resnet18.index.json
%end
%file train.py
import torch.nn as nn
from coreai_opt.quantization.config import QuantizerConfig

config = QuantizerConfig()
for i in range(4):
    config.set_module_name(f"layer{i}.0", None)
config.set_module_name(r"layer1\.", None)
model = nn.Linear(2, 2)
%end
--> {"id": 1, "method": "initialize", "params": {"processId": null, "rootUri": "${ROOT_URI}",
     "capabilities": {}}}
<-- {"id": 1, "result": {"capabilities": {"completionProvider": {}, "hoverProvider": true}}}
--> {"method": "initialized", "params": {}}
%open train.py
# The f-string is named as not checked (information, at the string); the half-typed raw regex
# matches nothing yet.
<-- {"method": "textDocument/publishDiagnostics", "params": {
      "uri": "${ROOT_URI}/train.py", "version": 1, "diagnostics": [
       {"code": "not-checked", "severity": 3, "source": "opscope",
        "range": {"start": {"line": 5, "character": 27}, "end": {"line": 5, "character": 40}},
        "message": {"$has": ["not checked", "an f-string"]}},
       {"code": "no-match", "severity": 2,
        "range": {"start": {"line": 6, "character": 24}, "end": {"line": 6, "character": 34}},
        "message": {"$has": ["`layer1\\.` matches no module"]}}]}}

# Completion after `r"layer1\.`: the names under layer1, written for a raw string (one
# backslash); the edit replaces from the quote to the closing quote, so the `r` stays. The
# editor filters on the text typed, `"layer1\.`: filterText is the name as written, unclosed.
--> {"id": 2, "method": "textDocument/completion", "params": {
     "textDocument": {"uri": "${ROOT_URI}/train.py"},
     "position": {"line": 6, "character": 33}}}
<-- {"id": 2, "result": {"items": {"$contains": [
      {"label": "layer1.0.conv1", "detail": "torch.nn.modules.conv.Conv2d",
       "filterText": "\"layer1\\.0\\.conv1",
       "textEdit": {"range": {"start": {"line": 6, "character": 24},
                              "end": {"line": 6, "character": 34}},
                    "newText": "\"layer1\\.0\\.conv1\""}},
      {"label": "layer1.1", "textEdit": {"newText": "\"layer1\\.1\""}}]}}}

# The f-string: no hover and no completion (its names are not guessed).
--> {"id": 3, "method": "textDocument/hover", "params": {
     "textDocument": {"uri": "${ROOT_URI}/train.py"},
     "position": {"line": 5, "character": 32}}}
<-- {"id": 3, "result": null}
--> {"id": 4, "method": "textDocument/completion", "params": {
     "textDocument": {"uri": "${ROOT_URI}/train.py"},
     "position": {"line": 5, "character": 32}}}
<-- {"id": 4, "result": {"items": {"$items": [0, 0]}}}

# Outside config strings (`nn.Linear` on the last line): null, [], [], no items; no error.
--> {"id": 5, "method": "textDocument/hover", "params": {
     "textDocument": {"uri": "${ROOT_URI}/train.py"},
     "position": {"line": 7, "character": 12}}}
<-- {"id": 5, "result": null}
--> {"id": 6, "method": "textDocument/definition", "params": {
     "textDocument": {"uri": "${ROOT_URI}/train.py"},
     "position": {"line": 7, "character": 12}}}
<-- {"id": 6, "result": {"$items": [0, 0]}}
--> {"id": 7, "method": "textDocument/codeAction", "params": {
     "textDocument": {"uri": "${ROOT_URI}/train.py"},
     "range": {"start": {"line": 7, "character": 0}, "end": {"line": 7, "character": 22}},
     "context": {"diagnostics": []}}}
<-- {"id": 7, "result": {"$items": [0, 0]}}
--> {"id": 8, "method": "textDocument/completion", "params": {
     "textDocument": {"uri": "${ROOT_URI}/train.py"},
     "position": {"line": 7, "character": 11}}}
<-- {"id": 8, "result": {"items": {"$items": [0, 0]}}}
