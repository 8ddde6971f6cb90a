-- Registers opscope with nvim-lspconfig, for users who manage servers through it:
--   require('opscope.lspconfig')
--   require('lspconfig').opscope.setup({ init_options = { model = 'model.pt2' } })
local configs = require('lspconfig.configs')
local util = require('lspconfig.util')

if not configs.opscope then
  configs.opscope = {
    default_config = {
      cmd = { 'opscope', 'lsp' },
      filetypes = { 'yaml', 'json', 'jsonc', 'python' },
      -- Only configs (opscope.is_config): other YAML, JSON and Python buffers get
      -- no root, and with single_file_support off no server, so your Python server keeps them.
      root_dir = function(fname, bufnr)
        if bufnr and not require('opscope').is_config(bufnr) then
          return nil
        end
        return util.root_pattern('opscope.yaml')(fname) or vim.fn.fnamemodify(fname, ':p:h')
      end,
      single_file_support = false,
      init_options = {},
      handlers = {
        ['opscope/status'] = function() end,
      },
    },
    docs = {
      description = [[
opscope: completion, hover and diagnostics for coreai-opt compression configs (YAML, JSON, and
the config calls of Python training scripts) and PEFT configs (LoraConfig calls,
adapter_config.json, axolotl / LLaMA-Factory YAML), from the real PyTorch model. The project
file `opscope.yaml` (model, inputs, mode, compressor) marks the root.
]],
    },
  }
end

return configs.opscope
