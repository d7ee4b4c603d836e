-- Driven by tests/test_server_nvim.py after the README's Neovim recipe was
-- loaded as init.lua (`-u`): wait for the buffer's MM001, list the code
-- actions as `vim.lsp.buf.code_action()` asks for them (no `only`), open a
-- second file of the package (the recipe must reuse its client), run
-- :MmlintFixAll, write the buffer, and record what happened as JSON.
-- Written for every Neovim from 0.7: each API newer than that is looked up first.
local result_path = os.getenv("MMLINT_NVIM_RESULT")
local out = { diagnostics = {}, titles = {}, clients = {} }

local function clients()
  local list = (vim.lsp.get_clients or vim.lsp.get_active_clients)()
  local names = {}
  for _, client in ipairs(list) do
    table.insert(names, client.name)
  end
  return names
end

local function attached(bufnr)
  if vim.lsp.get_clients then -- 0.10
    return #vim.lsp.get_clients({ bufnr = bufnr }) > 0
  end
  return next(vim.lsp.buf_get_clients(bufnr)) ~= nil
end

local function messages()
  if vim.api.nvim_exec2 then
    return vim.api.nvim_exec2("messages", { output = true }).output
  end
  return vim.api.nvim_exec("messages", true)
end

local function finish(failure)
  out.error = failure
  out.messages = messages()
  out.notified = MMLINT_NOTIFIED or {}
  local file = assert(io.open(result_path, "w"))
  file:write(vim.fn.json_encode(out))
  file:close()
  vim.cmd(failure and "cquit!" or "qall!")
end

local ok, failure = pcall(function()
  local bufnr = vim.api.nvim_get_current_buf()
  local line
  local received = vim.wait(90000, function()
    for _, d in ipairs(vim.diagnostic.get(bufnr)) do
      if d.code == "MM001" then
        line = d.lnum
        return true
      end
    end
    return false
  end, 50)
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(out.diagnostics, { code = d.code, lnum = d.lnum, source = d.source })
  end
  assert(received, "no MM001 diagnostic arrived")

  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = { start = { line = line, character = 0 }, ["end"] = { line = line, character = 0 } },
    context = { diagnostics = {} },
  }
  for _, response in pairs(vim.lsp.buf_request_sync(bufnr, "textDocument/codeAction", params, 90000) or {}) do
    for _, action in ipairs(response.result or {}) do
      table.insert(out.titles, action.title)
    end
  end

  vim.cmd("edit " .. os.getenv("MMLINT_NVIM_SECOND"))
  local second = vim.api.nvim_get_current_buf()
  assert(vim.wait(30000, function() return attached(second) end, 50), "the second buffer got no client")
  out.clients = clients()
  vim.cmd("buffer " .. bufnr)

  local tick = vim.api.nvim_buf_get_changedtick(bufnr)
  vim.cmd("MmlintFixAll")
  assert(vim.wait(90000, function() return vim.api.nvim_buf_get_changedtick(bufnr) ~= tick end, 50),
    ":MmlintFixAll changed nothing")
  vim.cmd("write")
end)
finish(not ok and tostring(failure) or nil)
