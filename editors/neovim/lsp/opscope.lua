-- Neovim 0.11+ native configuration: put this folder on 'runtimepath' and `vim.lsp.enable('opscope')`.
return {
  cmd = { 'opscope', 'lsp' },
  filetypes = { 'yaml', 'json', 'jsonc', 'python' },
  root_markers = { 'opscope.yaml' },
}
