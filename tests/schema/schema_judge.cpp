// Test driver for the differential test: reads configs named on stdin (one path per line)
// and prints, per config, one JSON line with opscope's errors (the same diagnose() and
// schema_diagnostics() the editor and `opscope check` use, without a model).
#include "opscope/coreai/config/document.h"
#include "opscope/features/diagnostics.h"
#include "opscope/features/schema_diagnostics.h"
#include "opscope/schema/schema.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>
#include <sstream>

int main(int argc, char** argv) {
  using namespace opscope;
  std::shared_ptr<const schema::Schema> schema = schema::builtin();
  if (argc > 1) { // a dump to use instead of the built-in copy
    std::ifstream in(argv[1]);
    std::stringstream text;
    text << in.rdbuf();
    auto parsed = schema::parse(text.str());
    if (auto* error = std::get_if<std::string>(&parsed)) {
      std::cerr << argv[1] << ": " << *error << "\n";
      return 2;
    }
    schema = std::get<std::shared_ptr<const schema::Schema>>(parsed);
  }
  std::string line;
  while (std::getline(std::cin, line)) {
    // PATH or PATH<TAB>ROOT_KEY (the compressor a project would name)
    std::string path = line.substr(0, line.find('\t'));
    std::string root = line.find('\t') == std::string::npos ? "" : line.substr(line.find('\t') + 1);
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    config::ConfigDocument doc =
        config::read_config(text.str(), config::guess_format(path, text.str()));
    std::vector<features::Diagnostic> all = features::diagnose(doc, nullptr);
    for (features::Diagnostic& d : features::schema_diagnostics(doc, *schema, root))
      all.push_back(std::move(d));
    nlohmann::json errors = nlohmann::json::array();
    for (const features::Diagnostic& d : all)
      if (d.severity == features::Severity::Error)
        errors.push_back({{"code", d.code},
                          {"line", d.range.start.line},
                          {"col", d.range.start.byte_col},
                          {"message", d.message}});
    std::cout << nlohmann::json{{"path", path}, {"errors", errors}}.dump() << "\n" << std::flush;
  }
  return 0;
}
