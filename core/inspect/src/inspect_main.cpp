// opscope-inspect: the worker that reads a .pt2 archive and writes the model
// index. `opscope` runs it as a child process, so a bad archive never takes the
// editor session down.
//   opscope-inspect ARCHIVE.pt2 [--mode graph|eager] -o INDEX.json
// Exit codes: 0 written, 1 the archive (or output) is unusable, 2 bad usage.
#include "opscope/index/serialize.h"
#include "opscope/inspect/archive.h"
#include "opscope/inspect/eager_mode.h"
#include "opscope/inspect/graph_mode.h"
#include "opscope/inspect/weight_table.h"

#include <cstdlib>

#include <iostream>
#include <malloc.h>
#include <optional>
#include <string>
#include <vector>

namespace {

constexpr const char* kUsage =
    "usage: opscope-inspect ARCHIVE.pt2 [--mode graph|eager] -o INDEX.json\n"
    "\n"
    "Reads a torch.export archive (torch.export.save, or `opscope export`) and writes\n"
    "the model index opscope reads: every module and op by the names coreai-opt uses.\n"
    "\n"
    "  --mode graph|eager  inspection mode, as coreai-opt's execution_mode (default: graph)\n"
    "  -o, --output FILE   where to write the index (`-` for standard output)\n"
    "  --stores-weights    print only whether the archive stores weight data: `weights`,\n"
    "                      or `weightless` (exported without it)\n"
    "  -h, --help          show this help\n"
    "\n"
    "Exit status: 0 index written, 1 the archive cannot be inspected (one line on\n"
    "stderr says why and what to do), 2 wrong arguments.\n";

struct Options {
  std::string archive;
  opscope::index::Mode mode = opscope::index::Mode::Graph;
  std::string output;
  bool stores_weights = false;
};

int usage_error(const std::string& message) {
  std::cerr << "opscope-inspect: " << message << "\n"
            << "usage: opscope-inspect ARCHIVE.pt2 [--mode graph|eager] -o INDEX.json "
               "(see --help)\n";
  return 2;
}

// Returns an exit code when the program should stop (help or bad usage).
std::optional<int> parse(const std::vector<std::string>& args, Options& options) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&](const std::string& flag) -> std::optional<std::string> {
      if (i + 1 >= args.size())
        return std::nullopt;
      (void)flag;
      return args[++i];
    };
    if (arg == "-h" || arg == "--help") {
      std::cout << kUsage;
      return 0;
    }
    if (arg == "--stores-weights") {
      options.stores_weights = true;
    } else if (arg == "--mode" || arg.rfind("--mode=", 0) == 0) {
      auto text = arg == "--mode" ? value(arg) : std::optional<std::string>(arg.substr(7));
      if (!text)
        return usage_error("--mode needs a value: graph or eager");
      auto mode = opscope::index::parse_mode(*text);
      if (!mode)
        return usage_error("unknown mode '" + *text + "': use graph or eager");
      options.mode = *mode;
    } else if (arg == "-o" || arg == "--output" || arg.rfind("--output=", 0) == 0) {
      auto text =
          arg.rfind("--output=", 0) == 0 ? std::optional<std::string>(arg.substr(9)) : value(arg);
      if (!text || text->empty())
        return usage_error(arg + " needs a file name");
      options.output = *text;
    } else if (!arg.empty() && arg[0] == '-' && arg != "-") {
      return usage_error("unknown option '" + arg + "'");
    } else if (options.archive.empty()) {
      options.archive = arg;
    } else {
      return usage_error("one archive at a time (got '" + options.archive + "' and '" + arg + "')");
    }
  }
  if (options.archive.empty())
    return usage_error("no archive given");
  if (options.output.empty() && !options.stores_weights)
    return usage_error("no output file given (-o INDEX.json)");
  return std::nullopt;
}

int run(const Options& options) {
  using namespace opscope;
  if (options.stores_weights) { // opscope explain asks before running the LibTorch worker
    const inspect::ZipRecords records(options.archive);
    const bool weightless =
        inspect::exported_weightless(records, inspect::read_weight_table(records, options.archive));
    std::cout << (weightless ? "weightless" : "weights") << "\n";
    return std::cout.flush() ? 0 : 1;
  }
  // Deliberately never freed: the process ends right after writing, and tearing
  // down a big model's parsed JSON node by node costs a quarter of the run.
  auto& archive = *new inspect::Archive(inspect::read_archive(options.archive));
  auto& index =
      *new index::Index(options.mode == index::Mode::Graph ? inspect::build_graph_index(archive)
                                                           : inspect::build_eager_index(archive));
  if (options.output == "-") {
    std::cout << index::to_json_text(index) << "\n";
    return std::cout.flush() ? 0 : 1;
  }
  index::save_index(index, options.output);
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  // Parsing a big graph makes millions of small allocations; glibc's fastbins
  // then cost repeated heap-wide consolidations (about 15% of the run).
  mallopt(M_MXFAST, 0);
  std::vector<std::string> args(argv + 1, argv + argc);
  Options options;
  if (auto code = parse(args, options))
    return *code;
  try {
    int code = run(options);
    // Skip static destructors and freeing the parsed model: the index is already
    // written and flushed, and tearing down a big model's data costs time for nothing.
    std::cout.flush();
    std::cerr.flush();
    std::_Exit(code);
  } catch (const opscope::inspect::ArchiveError& e) {
    std::cerr << e.what() << "\n";
  } catch (const opscope::index::IndexFormatError& e) {
    std::cerr << e.what() << "\n";
  } catch (const std::bad_alloc&) {
    std::cerr << options.archive << ": out of memory while inspecting it\n";
  } catch (const std::exception& e) {
    std::cerr << options.archive << ": cannot be inspected (" << e.what()
              << "); export it again with `" << opscope::inspect::kExportHint << "`\n";
  }
  return 1;
}
