-- Neovim headless: PEFT configs in a folder without opscope.yaml (issue 26). The training script's
-- LoraConfig(target_modules=["q_proj", "v_projj"]) on a cached tiny Llama shows v_projj as matching
-- nothing with v_proj offered (message and quick fix); completion inside the list offers v_proj;
-- hover on q_proj lists the modules it matches. adapter_config.json and axolotl YAML get the
-- client too; a Python file without PEFT does not. Run by `run.sh peft`; the exit code is the verdict.
local h = dofile(os.getenv('OPSCOPE_REPO') .. '/tests/editors/neovim/harness.lua')
local report, finish, client, open, code_of, shown = h.report, h.finish, h.client, h.open, h.code_of, h.shown
-- The tiny Llama's export takes 10-20 s on a loaded 2-core machine.
local load_timeout = tonumber(os.getenv('OPSCOPE_LOAD_TIMEOUT_MS') or '120000')
local opscope = h.start()

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

if no_match then
  -- The quick fix: replace the entry with the real name.
  local titles = vim.tbl_map(function(a) return a.title end, h.code_actions(bufnr, no_match))
  report(#vim.tbl_filter(offers_v_proj, titles) > 0, 'a quick fix offers v_proj', table.concat(titles, ' | '))
end

-- Completion inside the list: after `"v_` of the misspelt entry.
local at = quote + 3 -- 0-based column after `"v_`
local labels = h.completion_at(bufnr, list_line, at)
report(vim.tbl_contains(labels, 'v_proj') or #vim.tbl_filter(function(l) return l:match('^v_proj%f[^%w_]') end, labels) > 0,
  'completion inside target_modules offers v_proj', table.concat(labels, ', '))

-- Hover on "q_proj": the modules it matches.
local q_col = select(1, list_text:find('"q_proj"', 1, true)) + 1
local hover = h.hover_at(bufnr, list_line, q_col)
report(hover:find('model.layers.0.self_attn.q_proj', 1, true) ~= nil and
  hover:find('model.layers.1.self_attn.q_proj', 1, true) ~= nil,
  'hover on q_proj lists the modules it matches', hover)

-- The other PEFT files are configs too; a Python file without PEFT is not.
for _, name in ipairs({ 'adapter_config.json', 'axolotl.yaml' }) do
  local buf = open(name)
  report(client(buf) ~= nil, 'the opscope client attaches to ' .. name, 'filetype ' .. vim.bo[buf].filetype)
end
local plain = h.ws .. '/plain.py'
vim.fn.writefile({ 'import torch', 'model = torch.nn.Linear(2, 2)' }, plain)
local plainbuf = open('plain.py')
report(vim.bo[plainbuf].filetype == 'python' and client(plainbuf) == nil,
  'no opscope client on plain.py, a Python file without PEFT')
finish()
