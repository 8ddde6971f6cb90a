-- What every Neovim headless test needs, once: the environment run.sh prepared, TAP-like
-- reporting with the exit code as the verdict, the opscope client of a buffer, and LSP requests
-- read back as the user would see them. A test starts with
--   local h = dofile(os.getenv('OPSCOPE_REPO') .. '/tests/editors/neovim/harness.lua')
local h = {}

h.ws = assert(os.getenv('OPSCOPE_WS'), 'OPSCOPE_WS: the workspace run.sh prepared')
h.bin = assert(os.getenv('OPSCOPE_BIN'), 'OPSCOPE_BIN: the built opscope')
h.repo = assert(os.getenv('OPSCOPE_REPO'), 'OPSCOPE_REPO: the source tree')

local failures, passes = 0, 0
function h.report(ok, what, detail)
  io.stdout:write(('%s - %s%s\n'):format(ok and 'ok' or 'not ok', what, (not ok and detail) and (': ' .. detail) or ''))
  if ok then
    passes = passes + 1
  else
    failures = failures + 1
  end
end
function h.finish()
  io.stdout:write(('%d passed, %d failed\n'):format(passes, failures))
  io.stdout:flush()
  vim.cmd(failures == 0 and 'qa!' or 'cquit 1')
end

-- Loads the plugin from this tree and starts it on `opscope lsp`, as a user's init.lua would.
function h.start()
  vim.o.hidden = true -- the tests move between edited buffers
  vim.opt.runtimepath:prepend(h.repo .. '/editors/neovim')
  vim.cmd('filetype on')
  local opscope = require('opscope')
  opscope.setup({ cmd = { h.bin, 'lsp' } })
  return opscope
end

-- The opscope client attached to `buf`, or nil.
function h.client(buf)
  for _, c in pairs((vim.lsp.get_clients or vim.lsp.get_active_clients)()) do
    if c.name == 'opscope' and vim.lsp.buf_is_attached(buf, c.id) then
      return c
    end
  end
end
-- Edits `name` (relative to the workspace) and waits up to 5 s for the client to attach.
function h.open(name)
  vim.cmd('edit ' .. vim.fn.fnameescape(h.ws .. '/' .. name))
  local buf = vim.api.nvim_get_current_buf()
  vim.wait(5000, function() return h.client(buf) ~= nil end, 50)
  return buf
end

-- A diagnostic's code, wherever this Neovim version keeps it.
function h.code_of(d)
  return d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
end
-- The diagnostics of `buf` as (line, code, message), for a failure's detail.
function h.shown(buf)
  return vim.inspect(vim.tbl_map(function(d) return { d.lnum, h.code_of(d), d.message } end, vim.diagnostic.get(buf)))
end

-- A request on `buf`: each client's {err, result} (nothing on timeout).
function h.request(buf, method, params)
  params.textDocument = { uri = vim.uri_from_bufnr(buf) }
  return vim.lsp.buf_request_sync(buf, method, params, 10000) or {}
end
-- The hover text of every client's answer at (line, character), and the errors among them.
function h.hover_at(buf, line, character)
  local value, errors = '', {}
  for _, r in pairs(h.request(buf, 'textDocument/hover', { position = { line = line, character = character } })) do
    if r.err then
      table.insert(errors, r.err.message or vim.inspect(r.err))
    end
    local contents = r.result and r.result ~= vim.NIL and r.result.contents
    if type(contents) == 'table' then
      value = value .. (contents.value or table.concat(vim.tbl_map(function(c)
        return type(c) == 'string' and c or (c.value or '')
      end, contents), '\n'))
    elseif type(contents) == 'string' then
      value = value .. contents
    end
  end
  return value, errors
end
-- The completion labels of every client's answer at (line, character), and the errors among them.
function h.completion_at(buf, line, character)
  local labels, errors = {}, {}
  for _, r in pairs(h.request(buf, 'textDocument/completion', { position = { line = line, character = character } })) do
    if r.err then
      table.insert(errors, r.err.message or vim.inspect(r.err))
    end
    local items = r.result and r.result ~= vim.NIL and (r.result.items or r.result) or {}
    for _, item in ipairs(items) do
      table.insert(labels, item.label)
    end
  end
  return labels, errors
end
-- The code actions offered for diagnostic `d`, sent back as the server published it (as
-- Neovim's own code_action() does).
function h.code_actions(buf, d)
  local range = { start = { line = d.lnum, character = d.col }, ['end'] = { line = d.end_lnum, character = d.end_col } }
  local sent = vim.tbl_extend('keep', { range = range, message = d.message, code = h.code_of(d),
    severity = d.severity, source = d.source }, d.user_data and d.user_data.lsp or {})
  local actions = {}
  for _, r in pairs(h.request(buf, 'textDocument/codeAction', { range = range, context = { diagnostics = { sent } } })) do
    for _, action in ipairs(r.result or {}) do
      table.insert(actions, action)
    end
  end
  return actions
end

return h
