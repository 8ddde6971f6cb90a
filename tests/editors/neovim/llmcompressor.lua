-- Neovim headless: a compressed-tensors checkpoint in a folder without opscope.yaml (issue 27). The
-- tiny Gemma 3 config.json is its own model (exported weightless); its quantization_config ignores
-- the head as `language_model.lm_head` (transformers 4.5x's name), which in transformers 5 is
-- `lm_head`: a no-match warning offering lm_head (message and quick fix). A recipe YAML gets the
-- client too. Run by `run.sh llmcompressor`; the exit code is the verdict.
local h = dofile(os.getenv('OPSCOPE_REPO') .. '/tests/editors/neovim/harness.lua')
local report, finish, client, open, code_of, shown = h.report, h.finish, h.client, h.open, h.code_of, h.shown
-- The tiny Gemma 3's export takes 10-20 s on a loaded 2-core machine.
local load_timeout = tonumber(os.getenv('OPSCOPE_LOAD_TIMEOUT_MS') or '120000')
local opscope = h.start()

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

if warning then
  local fix
  for _, action in ipairs(h.code_actions(bufnr, warning)) do
    if action.title == 'Replace with `lm_head`' then fix = action end
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
