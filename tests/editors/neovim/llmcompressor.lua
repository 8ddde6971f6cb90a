-- Neovim headless: a compressed-tensors checkpoint in a folder without opscope.yaml (issue 27). The
-- tiny Gemma 3 config.json is its own model (exported weightless); its quantization_config ignores
-- the head as `language_model.lm_head` (transformers 4.5x's name), which in transformers 5 is
-- `lm_head`: a no-match warning offering lm_head (message and quick fix). A recipe YAML gets the
-- client too. Run by `run.sh llmcompressor`; the exit code is the verdict.
local ws = assert(os.getenv('OPSCOPE_WS'), 'OPSCOPE_WS: the prepared llm-compressor workspace')
local bin = assert(os.getenv('OPSCOPE_BIN'), 'OPSCOPE_BIN: the built opscope')
local repo = assert(os.getenv('OPSCOPE_REPO'), 'OPSCOPE_REPO: the source tree')
-- The tiny Gemma 3's export takes 10-20 s on a loaded 2-core machine.
local load_timeout = tonumber(os.getenv('OPSCOPE_LOAD_TIMEOUT_MS') or '120000')

local failures, passes = 0, 0
local function report(ok, what, detail)
  io.stdout:write(('%s - %s%s\n'):format(ok and 'ok' or 'not ok', what, (not ok and detail) and (': ' .. detail) or ''))
  if ok then passes = passes + 1 else failures = failures + 1 end
end
local function finish()
  io.stdout:write(('%d passed, %d failed\n'):format(passes, failures))
  io.stdout:flush()
  vim.cmd(failures == 0 and 'qa!' or 'cquit 1')
end

vim.o.hidden = true
vim.opt.runtimepath:prepend(repo .. '/editors/neovim')
vim.cmd('filetype on')
local opscope = require('opscope')
opscope.setup({ cmd = { bin, 'lsp' } })

local function client(buf)
  for _, c in pairs((vim.lsp.get_clients or vim.lsp.get_active_clients)()) do
    if c.name == 'opscope' and vim.lsp.buf_is_attached(buf, c.id) then
      return c
    end
  end
end
local function open(name)
  vim.cmd('edit ' .. vim.fn.fnameescape(ws .. '/' .. name))
  local buf = vim.api.nvim_get_current_buf()
  vim.wait(5000, function() return client(buf) ~= nil end, 50)
  return buf
end

local bufnr = open('gemma3-w4a16/config.json')
if not client(bufnr) then
  report(false, 'the opscope client attaches to the checkpoint config.json', 'filetype ' .. vim.bo[bufnr].filetype)
  return finish()
end
report(true, 'the opscope client attaches to the checkpoint config.json (quantization_config)')

local entry_line, entry_text
for i, l in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)) do
  if l:find('"language_model.lm_head"', 1, true) then
    entry_line, entry_text = i - 1, l
  end
end
assert(entry_line, 'config.json has the ignore entry')

local function code_of(d)
  return d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
end
local function shown(buf)
  return vim.inspect(vim.tbl_map(function(d) return { d.lnum, code_of(d), d.message } end, vim.diagnostic.get(buf)))
end

local warning
vim.wait(load_timeout, function()
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.lnum == entry_line and code_of(d) == 'no-match' then
      warning = d
      return true
    end
  end
  return false
end, 200)
local quote = select(1, entry_text:find('"language_model.lm_head"', 1, true)) - 1
report(warning ~= nil and warning.severity == vim.diagnostic.severity.WARN and
  warning.message:find('did you mean `lm_head`?', 1, true) ~= nil and
  (warning.col == quote or warning.col == quote + 1),
  'ignore language_model.lm_head is a no-match warning offering lm_head, at the entry', shown(bufnr))
report(#vim.tbl_filter(function(d) return code_of(d) == 'unknown-field' end, vim.diagnostic.get(bufnr)) == 0,
  "coreai-opt's reader says nothing of the checkpoint's keys", shown(bufnr))
io.stdout:write(('# status: %s\n'):format(opscope.status()))
if warning then
  io.stdout:write(('# %s:%d:%d: %s\n'):format('config.json', warning.lnum + 1, warning.col + 1, warning.message))
end

local function request(method, params)
  params.textDocument = { uri = vim.uri_from_bufnr(bufnr) }
  return vim.lsp.buf_request_sync(bufnr, method, params, 10000) or {}
end

if warning then
  local range = { start = { line = warning.lnum, character = warning.col },
                  ['end'] = { line = warning.end_lnum, character = warning.end_col } }
  local sent = vim.tbl_extend('keep', { range = range, message = warning.message, code = code_of(warning),
    severity = warning.severity, source = warning.source }, warning.user_data and warning.user_data.lsp or {})
  local fix
  for _, r in pairs(request('textDocument/codeAction', { range = range, context = { diagnostics = { sent } } })) do
    for _, action in ipairs(r.result or {}) do
      if action.title == 'Replace with `lm_head`' then fix = action end
    end
  end
  report(fix ~= nil, 'a quick fix offers lm_head')
  if fix then
    -- Applied as Neovim applies it: the entry becomes "lm_head" and the warning goes.
    vim.lsp.util.apply_workspace_edit(fix.edit, 'utf-16')
    local now = vim.api.nvim_buf_get_lines(bufnr, entry_line, entry_line + 1, false)[1]
    report(now:find('"lm_head"', 1, true) ~= nil, 'the quick fix writes "lm_head"', now)
    local gone = vim.wait(30000, function()
      for _, d in ipairs(vim.diagnostic.get(bufnr)) do
        if code_of(d) == 'no-match' or code_of(d) == 'head-quantized' then return false end
      end
      return true
    end, 200)
    report(gone, 'after the fix the warning and the head note are gone', shown(bufnr))
  end
end

local recipe = open('recipe.yaml')
report(client(recipe) ~= nil, 'the opscope client attaches to recipe.yaml (a GPTQModifier recipe)', 'filetype ' .. vim.bo[recipe].filetype)
finish()
