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
      root_dir = util.root_pattern('opscope.yaml'),
      single_file_support = true,
      init_options = {},
      handlers = {
        ['opscope/status'] = function() end,
      },
    },
    docs = {
      description = [[
opscope: completion, hover and diagnostics for coreai-opt compression configs, from the real
PyTorch model. The project file `opscope.yaml` (model, inputs, mode, compressor) marks the root.
]],
    },
  }
end

return configs.opscope
