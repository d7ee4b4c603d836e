-- Driven by tests/test_server_nvim.py: start `mmlint server` for the buffer
-- opened on the command line, wait for its MM001 diagnostic, apply the code
-- action that fixes it, write the buffer, and record what happened as JSON.
-- Works on Neovim 0.7 (vim.lsp.start_client) and later (vim.lsp.start).
local result_path = os.getenv("MMLINT_NVIM_RESULT")
local out = { diagnostics = {} }

local function finish(failure)
  out.error = failure
  local file = assert(io.open(result_path, "w"))
  file:write(vim.fn.json_encode(out))
  file:close()
  vim.cmd(failure and "cquit!" or "qall!")
end

local ok, failure = pcall(function()
  local bufnr = vim.api.nvim_get_current_buf()
  local config = {
    name = "mmlint",
    cmd = vim.fn.json_decode(os.getenv("MMLINT_NVIM_CMD")),
    root_dir = os.getenv("MMLINT_NVIM_ROOT"),
  }
  local client_id
  if vim.lsp.start then
    client_id = vim.lsp.start(config)
  else
    client_id = vim.lsp.start_client(config)
    vim.lsp.buf_attach_client(bufnr, client_id)
  end
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
    table.insert(out.diagnostics, { code = d.code, lnum = d.lnum, col = d.col, message = d.message, source = d.source })
  end
  assert(received, "no MM001 diagnostic arrived")
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = { start = { line = line, character = 0 }, ["end"] = { line = line, character = 0 } },
    context = { diagnostics = {}, only = { "quickfix" } },
  }
  local responses = vim.lsp.buf_request_sync(bufnr, "textDocument/codeAction", params, 90000) or {}
  local action
  for _, response in pairs(responses) do
    for _, candidate in ipairs(response.result or {}) do
      if candidate.title:find("^mmlint: fix MM001") then
        action = candidate
      end
    end
  end
  assert(action, "no code action fixing MM001")
  out.title = action.title
  local client = vim.lsp.get_client_by_id(client_id)
  vim.lsp.util.apply_workspace_edit(action.edit, client.offset_encoding)
  vim.cmd("write")
  vim.lsp.stop_client(client_id)
  vim.wait(10000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 50)
end)
finish(not ok and tostring(failure) or nil)
