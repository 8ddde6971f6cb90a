-- Neovim 0.11+ native configuration: put this folder on 'runtimepath' and `vim.lsp.enable('opscope')`.
-- Only configs get the server (require('opscope').is_config: coreai-opt YAML/JSON and scripts,
-- PEFT scripts, adapter_config.json, axolotl / LLaMA-Factory LoRA YAML, opscope.yaml): any other
-- buffer of these filetypes is left alone, so a Python file keeps your Python server to itself.
return {
  cmd = { 'opscope', 'lsp' },
  filetypes = { 'yaml', 'json', 'jsonc', 'python' },
  root_dir = function(bufnr, on_dir)
    local opscope = require('opscope')
    if opscope.is_config(bufnr) then
      local name = vim.api.nvim_buf_get_name(bufnr)
      on_dir(opscope.find_root(name) or vim.fn.fnamemodify(name, ':p:h'))
    end
  end,
}
