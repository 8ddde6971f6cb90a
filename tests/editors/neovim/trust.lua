-- Neovim headless: opening a config in a hostile repository (tests/hostile_repo.py) runs nothing.
-- The server asks (window/showMessageRequest), the user declines, and the config shows the
-- `untrusted-project` diagnostic; no marker file appears. Run by `run.sh trust`.
local ws = assert(os.getenv('OPSCOPE_WS'), 'OPSCOPE_WS: the prepared hostile repository')
local bin = assert(os.getenv('OPSCOPE_BIN'), 'OPSCOPE_BIN: the built opscope')
local repo = assert(os.getenv('OPSCOPE_REPO'), 'OPSCOPE_REPO: the source tree')
local markers = { 'pwned-by-python-setting', 'pwned-by-venv', 'pwned-by-import' }

local failures, passed = 0, 0
local function report(ok, what, detail)
  io.stdout:write(('%s - %s%s\n'):format(ok and 'ok' or 'not ok', what, (not ok and detail) and (': ' .. detail) or ''))
  if ok then passed = passed + 1 else failures = failures + 1 end
end
local function finish()
  io.stdout:write(('%d passed, %d failed\n'):format(passed, failures))
  io.stdout:flush()
  vim.cmd(failures == 0 and 'qa!' or 'cquit 1')
end

-- The user's answer to the server's question: dismissed ("Not now" by closing it). Neovim's own
-- handler would wait for a keypress in inputlist(), which a headless run cannot give.
local questions = {}
vim.lsp.handlers['window/showMessageRequest'] = function(_, result)
  table.insert(questions, result)
  return vim.NIL
end

vim.opt.runtimepath:prepend(repo .. '/editors/neovim')
vim.cmd('filetype on')
local opscope = require('opscope')
opscope.setup({ cmd = { bin, 'lsp' } })
vim.cmd('edit ' .. vim.fn.fnameescape(ws .. '/configs/quant.yaml'))
local bufnr = vim.api.nvim_get_current_buf()

local function code_of(d)
  return d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
end
local diagnostic
vim.wait(30000, function()
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if code_of(d) == 'untrusted-project' then
      diagnostic = d
      return true
    end
  end
  return false
end, 100)
report(diagnostic ~= nil and diagnostic.lnum == 0 and
  diagnostic.message:find('opscope.yaml names a Python model (model.py:build) that opscope would run with tools/evil.sh', 1, true) ~= nil,
  'the config shows the untrusted-project diagnostic on its first line',
  vim.inspect(vim.tbl_map(function(d) return { d.lnum, code_of(d), d.message } end, vim.diagnostic.get(bufnr))))
report(#questions == 1 and questions[1].message:find('Trust this project?', 1, true) ~= nil and
  questions[1].actions[1].title == 'Trust and export',
  'the server asks once whether to trust the project', vim.inspect(questions))

-- Time for the server to have exported, had it been going to.
vim.wait(3000, function() return false end, 100)
local ran = vim.tbl_filter(function(m) return vim.loop.fs_stat(ws .. '/' .. m) ~= nil end, markers)
report(#ran == 0, 'nothing the repository names ran', table.concat(ran, ', '))
local status = opscope.status_info()
report(status == nil or (status.state ~= 'loading' and status.state ~= 'ready'),
  'no model was loaded', vim.inspect(status))
finish()
