// The secret a TCP client of `opscope lsp --port` must send first, kept in a
// file only the server's user can read (as Jupyter does): any local user can
// reach 127.0.0.1, only the owner can read the token.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace opscope::lsp {

// 32 random bytes from the kernel, as 64 hex digits.
std::string make_access_token();

// Where the token of the server on `port` goes by default:
// $XDG_RUNTIME_DIR/opscope/lsp-PORT.token, else ~/.cache/opscope/run/lsp-PORT.token.
std::string default_token_path(int port);

// Writes `token` to a new file at `path` (mode 0600; a stale file is replaced),
// creating a missing parent folder with mode 0700. A parent that exists but
// that another user owns, or that others may write to, is refused. The error
// names the path and the problem.
std::optional<std::string> write_token_file(const std::string& path, std::string_view token);

// Creates `dir` (and missing parents) with mode 0700; refuses one that another
// user owns, or that others may write to (without the sticky bit), where a
// file could be swapped or read.
std::optional<std::string> ensure_private_dir(const std::filesystem::path& dir);

// Compares in time independent of where the first difference is.
bool tokens_equal(std::string_view a, std::string_view b);

} // namespace opscope::lsp
