-- Neovim headless end-to-end test of editors/neovim against the real `opscope lsp`: completion
-- (request and omnifunc typing path), hover and diagnostics in the example's config, and the
-- same in a training script whose config is written in Python (issue 12), where opscope must
-- answer nothing outside the config's strings (the user's Python server has those).
-- Run by run.sh; the exit code is the verdict (0 pass, 1 fail).
local h = dofile(os.getenv('OPSCOPE_REPO') .. '/tests/editors/neovim/harness.lua')
local report, finish, ws, repo = h.report, h.finish, h.ws, h.repo
local load_timeout = tonumber(os.getenv('OPSCOPE_LOAD_TIMEOUT_MS') or '240000')

local function read(path)
  local f = assert(io.open(path, 'r'))
  local text = f:read('*a')
  f:close()
  return text
end
local ex = vim.fn.json_decode(read(repo .. '/tests/editors/example.json'))

local function matches(text, js_regex)
  -- The expectations are JavaScript regexes; Vim's very-magic syntax reads the ones we use alike.
  return vim.fn.match(text, '\\v' .. js_regex) >= 0
end

vim.o.showmode = false
vim.opt.shortmess:append('c')
-- run.sh named the model's Python (torch) in the project's opscope.yaml and trusted it.
local opscope = h.start()

vim.cmd('edit ' .. vim.fn.fnameescape(ws .. '/' .. ex.config.file))
local bufnr = vim.api.nvim_get_current_buf()

local function client(buf)
  return h.client(buf or bufnr)
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

-- The first line of `buf` holding `needle` outside a comment (the examples explain themselves
-- in comments): its 0-based number and text.
local function line_of(needle, buf)
  for i, l in ipairs(vim.api.nvim_buf_get_lines(buf or bufnr, 0, -1, false)) do
    if not l:match('^%s*#') and l:find(needle, 1, true) then
      return i - 1, l
    end
  end
end

local function request(buf, method, line, character)
  return h.request(buf, method, { position = { line = line, character = character } })
end
local hover_at, completion_at = h.hover_at, h.completion_at
local function offers(labels, name)
  return #vim.tbl_filter(function(l) return l:find(name, 1, true) ~= nil end, labels) > 0
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
local hover_value = hover_at(bufnr, hover_line, hover_col)
local hover_ok = hover_value ~= ''
for _, re in ipairs(ex.hover.expect_re) do
  hover_ok = hover_ok and matches(hover_value, re)
end
report(hover_ok, 'hover on ' .. ex.hover.pattern .. ' shows its matched ops', hover_value)

-- Completion by request: a new key under module_name_configs.
local table_line = line_of('module_name_configs:')
local typed = ex.config.keyIndent .. ex.completion.prefix
vim.api.nvim_buf_set_lines(bufnr, table_line + 1, table_line + 1, false, { typed })
local labels = completion_at(bufnr, table_line + 1, #typed)
report(offers(labels, ex.completion.expect), 'completion request offers ' .. ex.completion.expect,
  table.concat(labels, ', '))

-- A training script with its config in Python (issue 12): the same project's client serves it.
local py = ex.python
vim.cmd('edit ' .. vim.fn.fnameescape(ws .. '/' .. py.file))
local pybuf = vim.api.nvim_get_current_buf()
local py_attached = vim.wait(10000, function() return client(pybuf) ~= nil end, 50)
report(py_attached, 'the opscope client attaches to the Python config ' .. py.file,
  'filetype ' .. vim.bo[pybuf].filetype)
if py_attached then
  local py_bad = line_of('"' .. py.badPattern .. '"', pybuf)
  local py_warning = vim.wait(30000, function()
    for _, d in ipairs(vim.diagnostic.get(pybuf)) do
      if d.lnum == py_bad and d.message:find('matches no module', 1, true) then
        return true
      end
    end
    return false
  end, 100)
  report(py_warning, 'diagnostics: a no-match warning on ' .. py.badPattern .. ' in ' .. py.file,
    vim.inspect(vim.tbl_map(function(d) return { d.lnum, d.message } end, vim.diagnostic.get(pybuf))))

  local line, text = line_of(py.hover.pattern, pybuf)
  local py_hover = hover_at(pybuf, line, text:find(py.hover.pattern, 1, true) + 1)
  local py_hover_ok = py_hover ~= ''
  for _, re in ipairs(py.hover.expect_re) do
    py_hover_ok = py_hover_ok and matches(py_hover, re)
  end
  report(py_hover_ok, 'hover on ' .. py.hover.pattern .. ' in ' .. py.file .. ' shows its matched ops', py_hover)

  -- Outside the config's strings opscope answers nothing, and no error: K, gd and completion
  -- there stay the Python server's.
  local out_line, out_text = line_of(py.outside.line, pybuf)
  local out_col = select(2, out_text:find(py.outside.cursorAfter, 1, true))
  local out_hover, hover_errors = hover_at(pybuf, out_line, out_col)
  local out_labels, completion_errors = completion_at(pybuf, out_line, out_col)
  local definition = request(pybuf, 'textDocument/definition', out_line, out_col)
  local definition_found, definition_errors = {}, {}
  for _, r in pairs(definition) do
    if r.err then
      table.insert(definition_errors, r.err.message or vim.inspect(r.err))
    elseif r.result and r.result ~= vim.NIL and not vim.tbl_isempty(r.result) then
      table.insert(definition_found, r.result)
    end
  end
  report(out_hover == '' and #out_labels == 0 and #definition_found == 0 and
    #hover_errors + #completion_errors + #definition_errors == 0,
    'outside config strings (`' .. py.outside.line .. '`) no hover, completion or definition, and no error',
    vim.inspect({ hover = out_hover, completion = out_labels, definition = definition_found,
      errors = { hover_errors, completion_errors, definition_errors } }))

  -- Typing new config calls at the end of the script.
  for _, case in ipairs(py.completions) do
    local at = vim.api.nvim_buf_line_count(pybuf)
    vim.api.nvim_buf_set_lines(pybuf, at, at, false, { case.line })
    local col = select(2, case.line:find(case.cursorAfter, 1, true))
    local got = completion_at(pybuf, at, col)
    report(offers(got, case.expect) and not vim.tbl_contains(got, case.absent),
      'completion of ' .. case.what .. ' offers ' .. case.expect .. ', not ' .. case.absent,
      table.concat(got, ', '))
  end
end

-- A Python file of the project without a config: no opscope (nothing to take from the user's
-- Python server, no process for it).
vim.cmd('edit ' .. vim.fn.fnameescape(ws .. '/' .. py.plain))
local plainbuf = vim.api.nvim_get_current_buf()
vim.wait(1000, function() return client(plainbuf) ~= nil end, 50)
report(vim.bo[plainbuf].filetype == 'python' and client(plainbuf) == nil,
  'no opscope client on ' .. py.plain .. ', a Python file without a config')
vim.cmd('buffer ' .. bufnr)

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
