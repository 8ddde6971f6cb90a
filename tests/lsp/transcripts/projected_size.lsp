# The model's projected size (issue 10 item 4, coreai-opt's bits_per_weight) where the user sees
# it: a code lens on the root key, the root key's hover, a module key's hover; it follows each
# edit. Against a committed eager index of a two-Linear model (fixtures/tiny_mlp.eager.index.json:
# fc1 32x16 + bias 32, fc2 8x32 + bias 8, float32; 808 weights, 3,232 bytes), and the same model
# in graph mode (fixtures/tiny_mlp.graph.index.json: the same index with graph op names).
# 4-bit palettization of every weight, 2-bit on fc2: fc1.weight 512 x 4 bits + a 16-entry LUT
# of 32 bits = 2,560 bits; fc2.weight 256 x 2 + 4 x 32 = 640; the biases stay at 32 bits
# (40 x 32 = 1,280): 4,480 bits over 808 weights = 5.54 bits per weight, 560 bytes.
%file opscope.yaml
model: ${FIXTURES}/tiny_mlp.eager.index.json
%end
%file configs/palettize.yaml
kmeans_palettization_config:
  global_config:
    op_state_spec:
      weight: {n_bits: 4}
  module_name_configs:
    fc2:
      op_state_spec:
        weight: {n_bits: 2}
%end
%file graph/opscope.yaml
model: ${FIXTURES}/tiny_mlp.graph.index.json
%end
%file graph/quant.yaml
quantization_config:
  global_config:
    op_state_spec:
      weight: {dtype: int4, granularity: {type: per_channel}}
%end
%file configs/prune.yaml
magnitude_pruning_config:
  global_config:
    op_state_spec:
      weight: {target_sparsity: 0.5}
%end
--> {"id": 1, "method": "initialize", "params": {"processId": null, "rootUri": "${ROOT_URI}",
     "capabilities": {"textDocument": {"codeLens": {}}}}}
<-- {"id": 1, "result": {"capabilities": {"codeLensProvider": {"resolveProvider": false}}}}
--> {"method": "initialized", "params": {}}
%open configs/palettize.yaml
<-- {"method": "opscope/status", "params": {"state": "ready"}}

--> {"id": 2, "method": "textDocument/codeLens", "params": {
     "textDocument": {"uri": "${ROOT_URI}/configs/palettize.yaml"}}}
<-- {"id": 2, "result": [{"range": {"start": {"line": 0, "character": 0},
                                    "end": {"line": 0, "character": 27}},
      "command": {"title": "projected size: 32.00 -> 5.54 bits per weight, 3.23 KB -> 560 B",
                  "command": ""}}]}

# The root key's hover says the same, with how many tensors are compressed.
--> {"id": 3, "method": "textDocument/hover", "params": {
     "textDocument": {"uri": "${ROOT_URI}/configs/palettize.yaml"},
     "position": {"line": 0, "character": 3}}}
<-- {"id": 3, "result": {"contents": {"kind": "markdown", "value": {
      "$has": ["Projected size", "32.00 -> 5.54 bits per weight", "2 of 4 tensors compressed"]}}}}

# A module key: its modules' own tensors (fc2.weight 640 bits + fc2.bias 256 over 264 weights).
--> {"id": 4, "method": "textDocument/hover", "params": {
     "textDocument": {"uri": "${ROOT_URI}/configs/palettize.yaml"},
     "position": {"line": 5, "character": 5}}}
<-- {"id": 4, "result": {"contents": {"kind": "markdown", "value": {
      "$has": ["Projected size** of these modules (2 tensors): 32.00 -> 3.39 bits per weight"]}}}}

# Typing 3 over the 2: fc2.weight 256 x 3 + 8 x 32 = 1,024 bits; 4,864 / 808 = 6.02.
--> {"method": "textDocument/didChange", "params": {
     "textDocument": {"uri": "${ROOT_URI}/configs/palettize.yaml", "version": 5},
     "contentChanges": [{"range": {"start": {"line": 7, "character": 25},
                                   "end": {"line": 7, "character": 26}}, "text": "3"}]}}
--> {"id": 5, "method": "textDocument/codeLens", "params": {
     "textDocument": {"uri": "${ROOT_URI}/configs/palettize.yaml"}}}
<-- {"id": 5, "result": [{"command": {
      "title": "projected size: 32.00 -> 6.02 bits per weight, 3.23 KB -> 608 B"}}]}
<-- {"method": "textDocument/publishDiagnostics", "params": {"version": 5}}
--> {"id": 6, "method": "textDocument/hover", "params": {
     "textDocument": {"uri": "${ROOT_URI}/configs/palettize.yaml"},
     "position": {"line": 0, "character": 3}}}
<-- {"id": 6, "result": {"contents": {"value": {"$has": ["32.00 -> 6.02 bits per weight"],
                                               "$lacks": ["5.54"]}}}}

# Where coreai-opt's bits_per_weight cannot answer, no lens (a "not computed" line above every
# such config is noise); the root key's hover says why.
%open configs/prune.yaml
<-- {"method": "textDocument/publishDiagnostics", "params": {
      "uri": "${ROOT_URI}/configs/prune.yaml"}}
--> {"id": 7, "method": "textDocument/codeLens", "params": {
     "textDocument": {"uri": "${ROOT_URI}/configs/prune.yaml"}}}
<-- {"id": 7, "result": []}
--> {"id": 8, "method": "textDocument/hover", "params": {
     "textDocument": {"uri": "${ROOT_URI}/configs/prune.yaml"},
     "position": {"line": 0, "character": 3}}}
<-- {"id": 8, "result": {"contents": {"value": {
      "$has": ["Projected size**: not computed", "MagnitudePruner"]}}}}

# Graph mode (issue 24), the default: the weight fake-quants prepare() inserts, int4 per
# channel (one float32 scale per output row): fc1.weight 512 x 4 + 32 x 32 = 3,072 bits,
# fc2.weight 256 x 4 + 8 x 32 = 1,280, the biases 1,280: 5,632 bits over 808 = 6.97, 704 bytes.
%open graph/quant.yaml
<-- {"method": "textDocument/publishDiagnostics", "params": {
      "uri": "${ROOT_URI}/graph/quant.yaml"}}
--> {"id": 9, "method": "textDocument/codeLens", "params": {
     "textDocument": {"uri": "${ROOT_URI}/graph/quant.yaml"}}}
<-- {"id": 9, "result": [{"command": {
      "title": "projected size: 32.00 -> 6.97 bits per weight, 3.23 KB -> 704 B"}}]}
--> {"id": 10, "method": "textDocument/hover", "params": {
     "textDocument": {"uri": "${ROOT_URI}/graph/quant.yaml"},
     "position": {"line": 0, "character": 3}}}
<-- {"id": 10, "result": {"contents": {"value": {
      "$has": ["graph-mode prepare() inserts", "32.00 -> 6.97 bits per weight",
               "2 of 4 tensors compressed"]}}}}
