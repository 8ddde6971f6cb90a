-- Neovim headless: PEFT configs in a folder without opscope.yaml (issue 26). The training script's
-- LoraConfig(target_modules=["q_proj", "v_projj"]) on a cached tiny Llama shows v_projj as matching
-- nothing with v_proj offered (message and quick fix); completion inside the list offers v_proj;
-- hover on q_proj lists the modules it matches. adapter_config.json and axolotl YAML get the
-- client too; a Python file without PEFT does not. Run by `run.sh peft`; the exit code is the verdict.
local ws = assert(os.getenv('OPSCOPE_WS'), 'OPSCOPE_WS: the prepared PEFT workspace')
local bin = assert(os.getenv('OPSCOPE_BIN'), 'OPSCOPE_BIN: the built opscope')
local repo = assert(os.getenv('OPSCOPE_REPO'), 'OPSCOPE_REPO: the source tree')
-- The tiny Llama's export takes 10-20 s on a loaded 2-core machine.
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

local bufnr = open('train_lora.py')
if not client(bufnr) then
  report(false, 'the opscope client attaches to train_lora.py (imports peft)', 'filetype ' .. vim.bo[bufnr].filetype)
  return finish()
end
report(true, 'the opscope client attaches to train_lora.py (imports peft)')

local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
local list_line, list_text
for i, l in ipairs(lines) do
  if l:find('"v_projj"', 1, true) then
    list_line, list_text = i - 1, l
  end
end
assert(list_line, 'train_lora.py has the target_modules list')

-- Offers `v_proj`: names it apart from the misspelt `v_projj` itself.
local function offers_v_proj(text)
  return text ~= nil and text:gsub('v_projj', ''):find('v_proj', 1, true) ~= nil
end
local function code_of(d)
  return d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
end
local function shown(buf)
  return vim.inspect(vim.tbl_map(function(d) return { d.lnum, code_of(d), d.message } end, vim.diagnostic.get(buf)))
end

-- The server finds the model in the hub cache and exports it (no opscope.yaml, no question).
local no_match
vim.wait(load_timeout, function()
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.lnum == list_line and d.message:find('v_projj', 1, true) then
      no_match = d
      return true
    end
  end
  return false
end, 200)
-- At the entry: its opening quote or its first letter.
local quote = select(1, list_text:find('"v_projj"', 1, true)) - 1
report(no_match ~= nil and code_of(no_match) == 'no-match' and offers_v_proj(no_match.message) and
  (no_match.col == quote or no_match.col == quote + 1),
  'v_projj is a no-match warning naming v_proj, at the entry', shown(bufnr))
io.stdout:write(('# status: %s\n'):format(opscope.status()))

local function request(method, params)
  params.textDocument = { uri = vim.uri_from_bufnr(bufnr) }
  return vim.lsp.buf_request_sync(bufnr, method, params, 10000) or {}
end

if no_match then
  -- The quick fix: replace the entry with the real name.
  local range = { start = { line = no_match.lnum, character = no_match.col },
                  ['end'] = { line = no_match.end_lnum, character = no_match.end_col } }
  -- The diagnostic as the server sent it, as Neovim's own code_action() gives it back.
  local sent = vim.tbl_extend('keep', { range = range, message = no_match.message, code = code_of(no_match),
    severity = no_match.severity, source = no_match.source }, no_match.user_data and no_match.user_data.lsp or {})
  local titles = {}
  for _, r in pairs(request('textDocument/codeAction', { range = range, context = { diagnostics = { sent } } })) do
    for _, action in ipairs(r.result or {}) do
      table.insert(titles, action.title)
    end
  end
  report(#vim.tbl_filter(offers_v_proj, titles) > 0, 'a quick fix offers v_proj', table.concat(titles, ' | '))
end

-- Completion inside the list: after `"v_` of the misspelt entry.
local at = quote + 3 -- 0-based column after `"v_`
local labels = {}
for _, r in pairs(request('textDocument/completion', { position = { line = list_line, character = at } })) do
  local items = r.result and r.result ~= vim.NIL and (r.result.items or r.result) or {}
  for _, item in ipairs(items) do
    table.insert(labels, item.label)
  end
end
report(vim.tbl_contains(labels, 'v_proj') or #vim.tbl_filter(function(l) return l:match('^v_proj%f[^%w_]') end, labels) > 0,
  'completion inside target_modules offers v_proj', table.concat(labels, ', '))

-- Hover on "q_proj": the modules it matches.
local q_col = select(1, list_text:find('"q_proj"', 1, true)) + 1
local hover = ''
for _, r in pairs(request('textDocument/hover', { position = { line = list_line, character = q_col } })) do
  local contents = r.result and r.result ~= vim.NIL and r.result.contents
  if type(contents) == 'table' then
    hover = hover .. (contents.value or '')
  elseif type(contents) == 'string' then
    hover = hover .. contents
  end
end
report(hover:find('model.layers.0.self_attn.q_proj', 1, true) ~= nil and
  hover:find('model.layers.1.self_attn.q_proj', 1, true) ~= nil,
  'hover on q_proj lists the modules it matches', hover)

-- The other PEFT files are configs too; a Python file without PEFT is not.
for _, name in ipairs({ 'adapter_config.json', 'axolotl.yaml' }) do
  local buf = open(name)
  report(client(buf) ~= nil, 'the opscope client attaches to ' .. name, 'filetype ' .. vim.bo[buf].filetype)
end
local plain = ws .. '/plain.py'
vim.fn.writefile({ 'import torch', 'model = torch.nn.Linear(2, 2)' }, plain)
local plainbuf = open('plain.py')
report(vim.bo[plainbuf].filetype == 'python' and client(plainbuf) == nil,
  'no opscope client on plain.py, a Python file without PEFT')
finish()
