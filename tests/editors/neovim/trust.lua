-- Neovim headless: opening a config in a hostile repository (tests/hostile_repo.py) runs nothing.
-- The server asks (window/showMessageRequest), the user declines, and the config shows the
-- `untrusted-project` diagnostic; no marker file appears. Run by `run.sh trust`.
local h = dofile(os.getenv('OPSCOPE_REPO') .. '/tests/editors/neovim/harness.lua')
local report, finish, code_of, ws = h.report, h.finish, h.code_of, h.ws
local markers = { 'pwned-by-python-setting', 'pwned-by-venv', 'pwned-by-import' }

-- The user's answer to the server's question: dismissed ("Not now" by closing it). Neovim's own
-- handler would wait for a keypress in inputlist(), which a headless run cannot give.
local questions = {}
vim.lsp.handlers['window/showMessageRequest'] = function(_, result)
  table.insert(questions, result)
  return vim.NIL
end

local opscope = h.start()
vim.cmd('edit ' .. vim.fn.fnameescape(ws .. '/configs/quant.yaml'))
local bufnr = vim.api.nvim_get_current_buf()

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
  h.shown(bufnr))
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
