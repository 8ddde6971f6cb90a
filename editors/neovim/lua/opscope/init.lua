-- opscope for Neovim 0.7+: starts `opscope lsp` for model-compression and fine-tuning configs
-- (coreai-opt YAML/JSON and training scripts, PEFT scripts, adapter_config.json and axolotl /
-- LLaMA-Factory YAML, llm-compressor recipes, oneshot scripts and compressed-tensors checkpoints'
-- config.json, and opscope.yaml itself: the rules in M.FILE_NAMES and M.RULES), one client
-- per project root (the folder holding opscope.yaml, else the file's folder).
--
--   require('opscope').setup({ cmd = { '/path/to/opscope', 'lsp' }, settings = { model = '...' } })
local M = {}

M.PROJECT_FILE = 'opscope.yaml'

-- Which buffers are configs: the same rules as the VS Code extension's (configDetection.ts).
-- Files served by their name alone: the project file and the adapter config PEFT saves.
M.FILE_NAMES = { M.PROJECT_FILE, 'adapter_config.json' }
-- Per filetype, Lua patterns of which one matching line makes the buffer a config. YAML keys are
-- root keys (column 0, optionally quoted). YAML and Python lines are matched on their code, before
-- a `#` comment: a script that only mentions a config class in a comment is not a config.
local function key(name) return '^["\']?' .. name .. '["\']?%s*:' end
local function key_is(name, value) return key(name) .. '%s*["\']?' .. value .. '["\']?%s*$' end
local function imports(module) return '^%s*from%s+' .. module .. '%f[^%w_][%w_.]*%s+import%f[^%w_]' end
local function import(module) return '^%s*import%s+' .. module .. '%f[^%w_]' end
local function modifier(name) return '^%s*["\']?' .. name .. '["\']?%s*:' end -- at any level
local function used(class) return '%f[%w_]' .. class .. '%s*[.(]' end -- called or `.from_dict`
M.RULES = {
  yaml = {
    -- coreai-opt. A copy of kCompressors (core/dialects/coreai/tables/src/compressors.cpp); tests/editors/compressor_tables.py: root keys.
    key('quantization_config'), key('kmeans_palettization_config'), key('magnitude_pruning_config'),
    -- PEFT through axolotl
    key('lora_target_modules'), key('lora_target_linear'), key_is('adapter', 'q?lora'),
    -- PEFT through LLaMA-Factory
    key('lora_target'), key_is('finetuning_type', 'lora'),
    -- llm-compressor recipes: a modifier key, at the root or under a stage and its group
    modifier('QuantizationModifier'), modifier('GPTQModifier'), modifier('AWQModifier'),
    modifier('SmoothQuantModifier'), modifier('SparseGPTModifier'),
  },
  json = {
    -- coreai-opt (PEFT's JSON is adapter_config.json, by name; a compressed-tensors checkpoint's
    -- config.json has quantization_config too)
    -- A copy of kCompressors (core/dialects/coreai/tables/src/compressors.cpp); tests/editors/compressor_tables.py: root keys.
    '"quantization_config"%s*:', '"kmeans_palettization_config"%s*:', '"magnitude_pruning_config"%s*:',
  },
  python = {
    -- coreai-opt. A copy of kCompressors (core/dialects/coreai/tables/src/compressors.cpp); tests/editors/compressor_tables.py: config classes.
    imports('coreai_opt'), import('coreai_opt'),
    used('QuantizerConfig'), used('KMeansPalettizerConfig'), used('MagnitudePrunerConfig'),
    -- PEFT
    imports('peft'), import('peft'),
    used('LoraConfig'), used('LoHaConfig'), used('LoKrConfig'), used('AdaLoraConfig'),
    used('IA3Config'), used('OFTConfig'), used('BOFTConfig'), used('VeraConfig'),
    -- llm-compressor: an import (oneshot scripts), or a modifier called
    imports('llmcompressor'), import('llmcompressor'),
    used('QuantizationModifier'), used('GPTQModifier'), used('AWQModifier'),
    used('SmoothQuantModifier'), used('SparseGPTModifier'),
  },
}
M.RULES.jsonc = M.RULES.json
local MATCH_CODE_ONLY = { yaml = true, python = true }

M.defaults = {
  cmd = { 'opscope', 'lsp' },
  filetypes = { 'yaml', 'json', 'jsonc', 'python' },
  -- Sent as initializationOptions and answered to workspace/configuration: model, mode,
  -- compressor, inputs, python override opscope.yaml (leave them out to follow it).
  settings = {},
  on_attach = nil,
  capabilities = nil,
}

M.config = vim.deepcopy(M.defaults)

-- root dir -> client id (Neovim 0.7 has no vim.lsp.start to reuse clients for us)
local clients = {}
-- The last `opscope/status` notification, for statuslines: require('opscope').status().
local last_status = nil

-- Neovim 0.11 made client functions methods (client:request); 0.7-0.10 call them with a dot.
local has_methods = vim.fn.has('nvim-0.11') == 1
local function call(client, method, ...)
  if has_methods then
    return client[method](client, ...)
  end
  return client[method](...)
end

local get_clients = vim.lsp.get_clients or vim.lsp.get_active_clients

local function dirname(path)
  return vim.fn.fnamemodify(path, ':h')
end

--- The folder of the nearest opscope.yaml above `path`, or nil.
function M.find_root(path)
  local dir = dirname(vim.fn.fnamemodify(path, ':p'))
  while true do
    if vim.fn.filereadable(dir .. '/' .. M.PROJECT_FILE) == 1 then
      return dir
    end
    local parent = dirname(dir)
    if parent == dir then
      return nil
    end
    dir = parent
  end
end

--- True when `lines` of a buffer of filetype `ft` match one of M.RULES[ft].
function M.text_is_config(ft, lines)
  local rules = M.RULES[ft]
  if not rules then
    return false
  end
  for _, line in ipairs(lines) do
    local text = MATCH_CODE_ONLY[ft] and line:match('^[^#]*') or line
    for _, rule in ipairs(rules) do
      if text:match(rule) then
        return true
      end
    end
  end
  return false
end

--- True when the buffer is a config opscope serves: by its name (M.FILE_NAMES) or its text.
--- Any other buffer, a Python file without a config above all, stays your other servers' alone.
function M.is_config(bufnr)
  local name = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(bufnr), ':t')
  if vim.tbl_contains(M.FILE_NAMES, name) then
    return true
  end
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, math.min(vim.api.nvim_buf_line_count(bufnr), 2000), false)
  return M.text_is_config(vim.bo[bufnr].filetype, lines)
end

local function server_options()
  local s = M.config.settings or {}
  local out = {}
  for _, key in ipairs({ 'model', 'mode', 'compressor', 'python' }) do
    if type(s[key]) == 'string' and s[key] ~= '' then
      out[key] = s[key]
    end
  end
  if type(s.inputs) == 'table' and #s.inputs > 0 then
    out.inputs = s.inputs
  end
  return out
end

local function on_status(_, result, ctx)
  -- Neovim 0.7 calls handlers as (err, result, ctx, config) like 0.8+.
  last_status = result
  if result and result.state == 'failed' then
    vim.notify(('opscope: %s: %s'):format(result.model or 'model', result.message or 'failed'), vim.log.levels.ERROR)
  end
  pcall(vim.api.nvim_exec_autocmds, 'User', { pattern = 'OpscopeStatus', modeline = false })
  return ctx and nil
end

function M.client_config(root)
  return {
    name = 'opscope',
    cmd = M.config.cmd,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    init_options = server_options(),
    settings = { opscope = server_options() },
    capabilities = M.config.capabilities or vim.lsp.protocol.make_client_capabilities(),
    on_attach = M.config.on_attach,
    handlers = { ['opscope/status'] = on_status },
  }
end

--- Starts (or reuses) the client for the buffer's project and attaches the buffer.
--- Returns the client id, or nil when the buffer is not an opscope config.
function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if not M.is_config(bufnr) then
    return nil
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  local root = M.find_root(name) or dirname(vim.fn.fnamemodify(name, ':p'))
  if vim.lsp.start then
    return vim.lsp.start(M.client_config(root), { bufnr = bufnr })
  end
  local id = clients[root]
  local existing = id and vim.lsp.get_client_by_id(id)
  if not existing or call(existing, 'is_stopped') then
    id = vim.lsp.start_client(M.client_config(root))
    clients[root] = id
  end
  if id then
    vim.lsp.buf_attach_client(bufnr, id)
  end
  return id
end

local function opscope_clients()
  local found = {}
  for _, client in pairs(get_clients()) do
    if client.name == 'opscope' then
      table.insert(found, client)
    end
  end
  return found
end

local function buffer_attached(bufnr)
  for _, client in ipairs(opscope_clients()) do
    if vim.lsp.buf_is_attached(bufnr, client.id) then
      return true
    end
  end
  return false
end

local function buffer_client(bufnr)
  for _, client in ipairs(opscope_clients()) do
    if vim.lsp.buf_is_attached(bufnr, client.id) then
      return client
    end
  end
  return opscope_clients()[1]
end

-- The current buffer and its opscope client; warns when the buffer has none.
local function current_buffer_client()
  local bufnr = vim.api.nvim_get_current_buf()
  local client = buffer_client(bufnr)
  if not client then
    vim.notify('opscope: no server for this buffer', vim.log.levels.WARN)
  end
  return bufnr, client
end

--- `:OpscopeSummary`: the model's summary tree in a scratch buffer.
function M.show_summary()
  local bufnr, client = current_buffer_client()
  if not client then
    return
  end
  local params = { command = 'opscope.showSummary', arguments = { vim.uri_from_bufnr(bufnr) } }
  call(client, 'request', 'workspace/executeCommand', params, function(err, result)
    if err or type(result) ~= 'string' then
      vim.notify('opscope: ' .. (err and err.message or 'no summary (is the model loaded?)'), vim.log.levels.ERROR)
      return
    end
    vim.cmd('new')
    local buf = vim.api.nvim_get_current_buf()
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(result, '\n', { plain = true }))
    vim.bo[buf].buftype = 'nofile'
    vim.bo[buf].bufhidden = 'wipe'
    vim.bo[buf].modifiable = false
    pcall(vim.api.nvim_buf_set_name, buf, 'opscope://summary')
  end, bufnr)
end

--- `:OpscopeReload`: rebuild the model of the current buffer.
function M.reload_model()
  local bufnr = vim.api.nvim_get_current_buf()
  local client = buffer_client(bufnr)
  if client then
    call(client, 'request', 'workspace/executeCommand',
      { command = 'opscope.reloadModel', arguments = { vim.uri_from_bufnr(bufnr) } }, function() end, bufnr)
  end
end

--- `:OpscopeTrust`: allow the server to run the Python model this config's project names (the
--- server asked once when the config opened; this trusts later, like `opscope trust`).
function M.trust_project()
  local bufnr, client = current_buffer_client()
  if not client then
    return
  end
  call(client, 'request', 'workspace/executeCommand',
    { command = 'opscope.trustProject', arguments = { vim.uri_from_bufnr(bufnr) } }, function(err)
      if err then
        vim.notify('opscope: ' .. err.message, vim.log.levels.ERROR)
      else
        vim.notify('opscope: trusted; exporting the model')
      end
    end, bufnr)
end

--- `:OpscopeRestart`: stop every opscope client and re-attach the open configs.
function M.restart()
  for _, client in ipairs(opscope_clients()) do
    call(client, 'stop')
  end
  clients = {}
  vim.defer_fn(function()
    for _, buf in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(buf) and vim.tbl_contains(M.config.filetypes, vim.bo[buf].filetype) then
        M.attach(buf)
      end
    end
  end, 500)
end

--- A short text for statuslines: "resnet · 71 ops", "opscope: loading", "opscope: failed".
function M.status()
  if not last_status then
    return ''
  end
  local model = vim.fn.fnamemodify(last_status.model or 'model', ':t')
  if last_status.state == 'ready' then
    return ('%s · %s ops'):format(model, tostring(last_status.ops or '?'))
  end
  return ('opscope: %s %s'):format(model, last_status.state or '')
end

--- The last `opscope/status` notification ({state, model, ops, message}) or nil.
function M.status_info()
  return last_status
end

function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), opts or {})
  local group = vim.api.nvim_create_augroup('opscope', { clear = true })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = M.config.filetypes,
    callback = function(args)
      M.attach(args.buf)
    end,
  })
  -- A file that became a config since it was opened (a script that now imports coreai_opt).
  vim.api.nvim_create_autocmd('BufWritePost', {
    group = group,
    callback = function(args)
      if vim.tbl_contains(M.config.filetypes, vim.bo[args.buf].filetype) and not buffer_attached(args.buf) then
        M.attach(args.buf)
      end
    end,
  })
  vim.api.nvim_create_user_command('OpscopeSummary', M.show_summary, { desc = 'opscope: show the model summary' })
  vim.api.nvim_create_user_command('OpscopeReload', M.reload_model, { desc = 'opscope: reload the model' })
  vim.api.nvim_create_user_command('OpscopeRestart', M.restart, { desc = 'opscope: restart the server' })
  vim.api.nvim_create_user_command('OpscopeTrust', M.trust_project,
    { desc = "opscope: trust this project (run its Python model)" })
end

return M
