// The user's consent to run a project's code, kept like `direnv allow`: a file in the user's
// config folder ($XDG_CONFIG_HOME/opscope/trusted.json, else ~/.config/opscope/trusted.json),
// readable and writable by its owner only, with one entry per trusted subject:
//
//   {"version": 1,
//    "trusted": {"/w/opscope.yaml": {"sha256": "…", "runs": "model.py:build with …",
//                                     "trusted_at": "2026-11-30T18:00:00Z"}}}
//
// A subject is trusted only with the digest it was trusted with: editing a trusted project
// file revokes its consent without anyone touching the store.
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace opscope::trust {

// The store cannot be read or written; the message names the file and what to do.
class StoreError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// Lower-case hex SHA-256.
std::string sha256_hex(std::string_view bytes);

// What a user consents to.
struct Subject {
  // A project file's absolute path, or kEditorSettingsPrefix + the workspace folder.
  std::string key;
  // SHA-256 of the project file's exact bytes, or of the settings that decide what runs.
  std::string sha256;
  // For people: "model.py:build with /w/.venv/bin/python, inputs 1x3x224x224".
  std::string runs;
};

inline constexpr const char* kEditorSettingsPrefix = "editor-settings:";

// The project file as it is now; nullopt when it cannot be read (then it cannot be trusted).
std::optional<Subject> project_file_subject(const std::string& path, std::string runs);
// Editor settings naming a Python target: consent is per workspace folder and per value of
// everything that decides what runs.
Subject editor_settings_subject(const std::string& workspace_dir, const std::string& model,
                                const std::string& python, const std::vector<std::string>& inputs,
                                std::string runs);

struct Entry {
  std::string key;
  std::string sha256;
  std::string runs;
  std::string trusted_at; // UTC, ISO 8601
};

class Store {
public:
  explicit Store(std::string file);
  // $XDG_CONFIG_HOME/opscope/trusted.json, else $HOME/.config/opscope/trusted.json.
  static std::string default_file();
  const std::string& file() const { return file_; }

  // True when `subject` was trusted with this digest. A missing store trusts nothing; a store
  // that is malformed, not owned by this user or writable by others trusts nothing either
  // (problem() says why).
  bool trusts(const Subject& subject) const;
  // Why the store was ignored at the last read ("" when it was fine or absent).
  const std::string& problem() const { return problem_; }

  // Every entry, sorted by key. Throws StoreError for a store that cannot be used.
  std::vector<Entry> entries() const;
  // Records consent (replacing an older digest for the same key). Creates the folder (0700)
  // and the file (0600); the write is atomic and locked against concurrent writers.
  void allow(const Subject& subject);
  // Forgets `key`; false when it was not trusted.
  bool revoke(const std::string& key);

private:
  std::string file_;
  mutable std::string problem_;
  // The last read (key -> sha256), kept while the file's identity, size and times stay the
  // same: editors ask on every keystroke. Not thread-safe: one Store per thread.
  mutable std::string cached_version_;
  mutable std::map<std::string, std::string> cached_digests_;
};

} // namespace opscope::trust
