// The schema dumps the workspace asks for (workspace::Host::make_schema_dump), each made once
// per session in a child process (the project's interpreter running the export helper's
// `schema` command), bounded in time; the io thread never waits for one.
#pragma once

#include "child_process.h"
#include "log.h"

#include "opscope/workspace/schema_dump.h"

#include <boost/asio/io_context.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

namespace opscope::lsp {

class SchemaDumps {
public:
  // `problem` is empty when the dump is in the cache now, else the message for the user.
  using Done = std::function<void(const workspace::SchemaDump&, const std::string& problem)>;
  SchemaDumps(boost::asio::io_context& io, Logger& log, std::chrono::milliseconds timeout,
              Done done)
      : io_(io), log_(log), timeout_(timeout), done_(std::move(done)) {}
  ~SchemaDumps();

  // Starts making `dump` unless it was tried already in this session (a failed dump would
  // fail again on every edit; a new library version is a new dump).
  void make(const workspace::SchemaDump& dump);

private:
  boost::asio::io_context& io_;
  Logger& log_;
  std::chrono::milliseconds timeout_;
  Done done_;
  std::set<std::string> tried_;
  std::map<std::string, std::shared_ptr<ChildProcess>> running_;
};

} // namespace opscope::lsp
