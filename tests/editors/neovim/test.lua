-- Neovim headless end-to-end test of editors/neovim against the real `opscope lsp`: completion
-- (request and omnifunc typing path), hover and diagnostics in the example's config.
-- Run by run.sh; the exit code is the verdict (0 pass, 1 fail).
local ws = assert(os.getenv('OPSCOPE_WS'), 'OPSCOPE_WS: the prepared example workspace')
local bin = assert(os.getenv('OPSCOPE_BIN'), 'OPSCOPE_BIN: the built opscope')
local repo = assert(os.getenv('OPSCOPE_REPO'), 'OPSCOPE_REPO: the source tree')
local load_timeout = tonumber(os.getenv('OPSCOPE_LOAD_TIMEOUT_MS') or '240000')

local function read(path)
  local f = assert(io.open(path, 'r'))
  local text = f:read('*a')
  f:close()
  return text
end
local ex = vim.fn.json_decode(read(repo .. '/tests/editors/example.json'))

local failures = 0
local function report(ok, what, detail)
  io.stdout:write(('%s - %s%s\n'):format(ok and 'ok' or 'not ok', what, (not ok and detail) and (': ' .. detail) or ''))
  if not ok then
    failures = failures + 1
  end
end
local function finish()
  io.stdout:write(('%d passed, %d failed\n'):format(4 - failures, failures))
  io.stdout:flush()
  if failures == 0 then
    vim.cmd('qa!')
  else
    vim.cmd('cquit 1')
  end
end
local function matches(text, js_regex)
  -- The expectations are JavaScript regexes; Vim's very-magic syntax reads the ones we use alike.
  return vim.fn.match(text, '\\v' .. js_regex) >= 0
end

vim.o.showmode = false
vim.opt.shortmess:append('c')
vim.opt.runtimepath:prepend(repo .. '/editors/neovim')
vim.cmd('filetype on')
local opscope = require('opscope')
-- run.sh named the model's Python (torch) in the project's opscope.yaml and trusted it.
opscope.setup({ cmd = { bin, 'lsp' } })

vim.cmd('edit ' .. vim.fn.fnameescape(ws .. '/' .. ex.config.file))
local bufnr = vim.api.nvim_get_current_buf()

local function client()
  for _, c in pairs((vim.lsp.get_clients or vim.lsp.get_active_clients)()) do
    if c.name == 'opscope' and vim.lsp.buf_is_attached(bufnr, c.id) then
      return c
    end
  end
end
if not vim.wait(10000, function() return client() ~= nil end, 50) then
  report(false, 'the opscope client attaches to ' .. ex.config.file, 'no client')
  return finish()
end
local ready = vim.wait(load_timeout, function()
  local s = opscope.status_info()
  return s ~= nil and (s.state == 'ready' or s.state == 'failed')
end, 100)
local status = opscope.status_info() or {}
if not ready or status.state ~= 'ready' then
  report(false, 'the model loads', vim.inspect(status))
  return finish()
end
io.stdout:write(('# model ready: %s\n'):format(opscope.status()))

local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
-- The first line holding `needle` outside a comment (the example explains itself in comments).
local function line_of(needle)
  for i, l in ipairs(lines) do
    if not l:match('^%s*#') and l:find(needle, 1, true) then
      return i - 1, l
    end
  end
end

-- Diagnostics: the bad pattern gets a no-match warning (published after the model loaded).
local bad_line = line_of(ex.badPattern)
local got_warning = vim.wait(30000, function()
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.lnum == bad_line and d.message:lower():find('match') then
      return true
    end
  end
  return false
end, 100)
report(got_warning, 'diagnostics: a no-match warning on ' .. ex.badPattern,
  vim.inspect(vim.tbl_map(function(d) return { d.lnum, d.message } end, vim.diagnostic.get(bufnr))))

-- Hover on the good pattern shows what it matches.
local hover_line, hover_text = line_of(ex.hover.pattern)
local hover_col = hover_text:find(ex.hover.pattern, 1, true) + 1
local hover = vim.lsp.buf_request_sync(bufnr, 'textDocument/hover', {
  textDocument = { uri = vim.uri_from_bufnr(bufnr) },
  position = { line = hover_line, character = hover_col },
}, 10000) or {}
local hover_value = ''
for _, r in pairs(hover) do
  local contents = r.result and r.result.contents
  if type(contents) == 'table' then
    hover_value = hover_value .. (contents.value or table.concat(vim.tbl_map(function(c)
      return type(c) == 'string' and c or (c.value or '')
    end, contents), '\n'))
  elseif type(contents) == 'string' then
    hover_value = hover_value .. contents
  end
end
local hover_ok = hover_value ~= ''
for _, re in ipairs(ex.hover.expect_re) do
  hover_ok = hover_ok and matches(hover_value, re)
end
report(hover_ok, 'hover on ' .. ex.hover.pattern .. ' shows its matched ops', hover_value)

-- Completion by request: a new key under module_name_configs.
local table_line = line_of('module_name_configs:')
local typed = ex.config.keyIndent .. ex.completion.prefix
vim.api.nvim_buf_set_lines(bufnr, table_line + 1, table_line + 1, false, { typed })
local result = vim.lsp.buf_request_sync(bufnr, 'textDocument/completion', {
  textDocument = { uri = vim.uri_from_bufnr(bufnr) },
  position = { line = table_line + 1, character = #typed },
}, 10000) or {}
local labels = {}
for _, r in pairs(result) do
  local items = r.result and (r.result.items or r.result) or {}
  for _, item in ipairs(items) do
    table.insert(labels, item.label)
  end
end
report(vim.tbl_contains(labels, ex.completion.expect) or
  #vim.tbl_filter(function(l) return l:find(ex.completion.expect, 1, true) ~= nil end, labels) > 0,
  'completion request offers ' .. ex.completion.expect, table.concat(labels, ', '))

-- Completion as typed: omnifunc with <C-x><C-o> in insert mode; read the menu from a timer
-- (feedkeys with 'x!' would block forever).
vim.bo[bufnr].omnifunc = 'v:lua.vim.lsp.omnifunc'
vim.api.nvim_win_set_cursor(0, { table_line + 2, #typed })
local menu = nil
local timer = vim.loop.new_timer()
local started = vim.loop.now()
timer:start(200, 200, vim.schedule_wrap(function()
  local info = vim.fn.complete_info({ 'items', 'pum_visible' })
  if (info.items and #info.items > 0) or vim.loop.now() - started > 15000 then
    timer:stop()
    timer:close()
    menu = info.items or {}
    vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<C-e><Esc>', true, false, true), 'n', false)
    local words = vim.tbl_map(function(i) return i.abbr ~= '' and i.abbr or i.word end, menu)
    local found = #vim.tbl_filter(function(w) return w:find(ex.completion.expect, 1, true) ~= nil end, words) > 0
    report(found, 'omnifunc menu (<C-x><C-o>) offers ' .. ex.completion.expect, table.concat(words, ', '))
    finish()
  end
end))
vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('A<C-x><C-o>', true, false, true), 'n', false)
