#include "safetensors_reader.h"

#include "opscope/support/regular_file.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <set>

#include <sys/mman.h>
#include <unistd.h>

namespace opscope::weights {
namespace fs = std::filesystem;

namespace {

constexpr const char* kResave =
    "re-save the checkpoint with safetensors (save_pretrained(..., safe_serialization=True)) or "
    "fetch it again";
// A checkpoint's index lists a few thousand tensors; its file is a few hundred KB.
constexpr std::uint64_t kMaxIndexBytes = std::uint64_t{64} << 20;
// A folder of shards: a 400B model has ~200.
constexpr std::size_t kMaxFolderEntries = 100'000;
constexpr std::size_t kMaxFiles = 4096;
constexpr std::size_t kMaxRank = 64;
// A safetensors header nests three deep ({name: {shape: [...]}}); deeper is not one, and
// nlohmann's parser would recurse on it.
constexpr int kMaxDepth = 16;

std::uint64_t little_endian_u64(std::string_view bytes) {
  std::uint64_t value = 0;
  for (int i = 7; i >= 0; --i)
    value = (value << 8) | static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]);
  return value;
}

// Deeper than kMaxDepth outside strings: refused before the parser sees it.
bool too_deep(std::string_view json) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (char c : json) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > kMaxDepth)
        return true;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return false;
}

nlohmann::json parse_json(std::string_view json, const std::string& file, const char* what) {
  if (too_deep(json))
    throw SafetensorsError(file + ": its " + what + " nests deeper than " +
                           std::to_string(kMaxDepth) + " levels: not a safetensors " + what + "; " +
                           kResave);
  try {
    return nlohmann::json::parse(json.begin(), json.end());
  } catch (const nlohmann::json::parse_error& e) {
    throw SafetensorsError(file + ": its " + what + " is not valid JSON (byte " +
                           std::to_string(e.byte) + "); " + kResave);
  } catch (const nlohmann::json::exception&) { // a number past 64 bits and a double's range
    throw SafetensorsError(file + ": its " + what + " holds a number out of range; " + kResave);
  }
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

SafetensorsTensor tensor_of(const std::string& name, const nlohmann::json& entry,
                            std::uint64_t data_start, std::uint64_t file_size,
                            const std::string& file) {
  const std::string where = file + ": tensor '" + name + "'";
  if (!entry.is_object())
    throw SafetensorsError(where + " is not described by an object; " + kResave);
  auto dtype = entry.find("dtype");
  auto shape = entry.find("shape");
  auto offsets = entry.find("data_offsets");
  if (dtype == entry.end() || !dtype->is_string() || shape == entry.end() || !shape->is_array() ||
      offsets == entry.end() || !offsets->is_array() || offsets->size() != 2)
    throw SafetensorsError(where + " lacks a dtype, shape or data_offsets [begin, end]; " +
                           kResave);
  SafetensorsTensor t;
  t.dtype = dtype->get<std::string>();
  const std::optional<std::uint64_t> element = safetensors_element_size(t.dtype);
  if (!element)
    throw SafetensorsError(where + " has dtype '" + t.dtype.substr(0, 32) +
                           "', which this reader does not know (F64, F32, F16, BF16, integer "
                           "and bool types); convert the checkpoint to one of them");
  if (shape->size() > kMaxRank)
    throw SafetensorsError(where + " has " + std::to_string(shape->size()) + " axes; " + kResave);
  // Elements times element size, refusing overflow: the byte count must fit in the file.
  std::uint64_t bytes = *element;
  bool overflow = false, empty = false;
  for (const nlohmann::json& d : *shape) {
    if (!d.is_number_unsigned())
      throw SafetensorsError(where + " has a shape entry that is not a non-negative integer; " +
                             kResave);
    const std::uint64_t size = d.get<std::uint64_t>();
    if (size > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      throw SafetensorsError(where + " has an axis of " + std::to_string(size) + "; " + kResave);
    empty = empty || size == 0;
    if (size != 0 && bytes > std::numeric_limits<std::uint64_t>::max() / size)
      overflow = true;
    else
      bytes *= size;
    t.shape.push_back(static_cast<std::int64_t>(size));
  }
  if (empty)
    bytes = 0; // an empty tensor holds no bytes, whatever its other axes
  else if (overflow)
    throw SafetensorsError(where + " has a shape whose size overflows 64 bits; " + kResave);
  const nlohmann::json& b = (*offsets)[0];
  const nlohmann::json& e = (*offsets)[1];
  if (!b.is_number_unsigned() || !e.is_number_unsigned())
    throw SafetensorsError(where + " has data_offsets that are not non-negative integers; " +
                           kResave);
  const std::uint64_t begin = b.get<std::uint64_t>(), end = e.get<std::uint64_t>();
  if (begin > end)
    throw SafetensorsError(where + " has data_offsets [" + std::to_string(begin) + ", " +
                           std::to_string(end) + "] that end before they begin; " + kResave);
  if (end > file_size - data_start)
    throw SafetensorsError(where + " ends at byte " + std::to_string(end) + " of the data, past " +
                           "the file's " + std::to_string(file_size - data_start) +
                           " data bytes (a truncated file or a partial download); " + kResave);
  if (end - begin != bytes)
    throw SafetensorsError(where + ": dtype " + t.dtype + " and shape " + shape_text(t.shape) +
                           " make " + std::to_string(bytes) + " bytes, its data_offsets " +
                           std::to_string(end - begin) + "; " + kResave);
  t.begin = data_start + begin;
  t.end = data_start + end;
  return t;
}

bool is_plain_file_name(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.size() <= 255 &&
         name.find('/') == std::string::npos && name.find('\\') == std::string::npos &&
         name.find('\0') == std::string::npos;
}

void read_exactly(int fd, char* out, std::size_t size, std::uint64_t offset,
                  const std::string& file) {
  std::size_t done = 0;
  while (done < size) {
    const ssize_t got = ::pread(fd, out + done, size - done, static_cast<off_t>(offset + done));
    if (got <= 0)
      throw SafetensorsError(file + ": cannot read its header (the file ended or an I/O error)");
    done += static_cast<std::size_t>(got);
  }
}

SafetensorsHeader read_header(const std::string& file, std::uint64_t& file_size) {
  try {
    support::RegularFile in(file);
    file_size = in.size();
    std::string first8(8, '\0');
    if (file_size < 8)
      throw SafetensorsError(file + ": " + std::to_string(file_size) +
                             " bytes, shorter than a safetensors header's length; " + kResave);
    read_exactly(in.fd(), first8.data(), 8, 0, file);
    const std::uint64_t length = safetensors_header_length(first8, file_size, file);
    std::string json(length, '\0');
    read_exactly(in.fd(), json.data(), json.size(), 8, file);
    return parse_safetensors_header(json, file_size, file);
  } catch (const support::FileReadError& e) {
    throw SafetensorsError(e.what());
  }
}

} // namespace

std::optional<std::uint64_t> safetensors_element_size(std::string_view dtype) {
  if (dtype == "F64" || dtype == "I64" || dtype == "U64")
    return 8;
  if (dtype == "F32" || dtype == "I32" || dtype == "U32")
    return 4;
  if (dtype == "F16" || dtype == "BF16" || dtype == "I16" || dtype == "U16")
    return 2;
  if (dtype == "I8" || dtype == "U8" || dtype == "BOOL")
    return 1;
  return std::nullopt;
}

std::uint64_t safetensors_header_length(std::string_view first8, std::uint64_t file_size,
                                        const std::string& file) {
  if (first8.size() < 8 || file_size < 8)
    throw SafetensorsError(file + ": shorter than a safetensors header's 8-byte length; " +
                           kResave);
  const std::uint64_t length = little_endian_u64(first8);
  if (length > kMaxSafetensorsHeaderBytes)
    throw SafetensorsError(file + ": its first 8 bytes say a header of " + std::to_string(length) +
                           " bytes, past the 100 MB a safetensors header may hold: not a "
                           "safetensors file (a .bin or .pt checkpoint?) or a damaged one; " +
                           kResave);
  if (length > file_size - 8)
    throw SafetensorsError(file + ": its header of " + std::to_string(length) +
                           " bytes runs past the file's " + std::to_string(file_size) +
                           " bytes (a truncated file or a partial download); " + kResave);
  return length;
}

SafetensorsHeader parse_safetensors_header(std::string_view json, std::uint64_t file_size,
                                           const std::string& file) {
  SafetensorsHeader header;
  header.data_start = 8 + json.size();
  if (header.data_start > file_size)
    throw SafetensorsError(file + ": its header runs past the end of the file; " + kResave);
  const nlohmann::json document = parse_json(json, file, "header");
  if (!document.is_object())
    throw SafetensorsError(file + ": its header is not a JSON object; " + kResave);
  for (const auto& [name, entry] : document.items()) {
    if (name == "__metadata__")
      continue; // free-form strings (the format, the library that saved it)
    header.tensors.emplace(name, tensor_of(name, entry, header.data_start, file_size, file));
  }
  return header;
}

std::map<std::string, std::string> parse_safetensors_index(std::string_view json,
                                                           const std::string& file) {
  const nlohmann::json document = parse_json(json, file, "index");
  auto map = document.is_object() ? document.find("weight_map") : document.end();
  if (map == document.end() || !map->is_object())
    throw SafetensorsError(file + ": no \"weight_map\" object (tensor name -> file); " + kResave);
  std::map<std::string, std::string> weight_map;
  for (const auto& [name, where] : map->items()) {
    if (!where.is_string() || !is_plain_file_name(where.get<std::string>()))
      throw SafetensorsError(file + ": weight_map puts '" + name.substr(0, 200) +
                             "' in something that is not a file name in this folder; " + kResave);
    weight_map.emplace(name, where.get<std::string>());
  }
  return weight_map;
}

MappedBytes::MappedBytes(void* mapping, std::size_t mapping_size, const void* data,
                         std::size_t size)
    : mapping_(mapping), mapping_size_(mapping_size), data_(data), size_(size) {}

MappedBytes::~MappedBytes() {
  if (mapping_)
    ::munmap(mapping_, mapping_size_);
}

SafetensorsCheckpoint::SafetensorsCheckpoint(const std::string& path) : path_(path) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) {
    add_file(path);
    for (const auto& [file, why] : unreadable_)
      throw SafetensorsError(why);
    return;
  }
  const fs::path folder(path);
  const fs::path index = folder / "model.safetensors.index.json";
  std::vector<std::string> files;
  if (fs::exists(index, ec)) {
    std::string text;
    try {
      text = support::read_regular_file(index.string(), kMaxIndexBytes);
    } catch (const support::FileReadError& e) {
      throw SafetensorsError(e.what());
    }
    std::set<std::string> named;
    for (const auto& [tensor, file] : parse_safetensors_index(text, index.string())) {
      named.insert(file);
      missing_by_index_.emplace(tensor, (folder / file).string());
    }
    if (named.size() > kMaxFiles)
      throw SafetensorsError(index.string() + ": names " + std::to_string(named.size()) +
                             " files, more than the " + std::to_string(kMaxFiles) +
                             " this reader opens");
    for (const std::string& file : named)
      files.push_back((folder / file).string());
  } else if (fs::exists(folder / "model.safetensors", ec)) {
    files.push_back((folder / "model.safetensors").string());
  } else {
    std::size_t seen = 0;
    for (const auto& entry : fs::directory_iterator(folder, ec)) {
      if (++seen > kMaxFolderEntries)
        throw SafetensorsError(path + ": more than " + std::to_string(kMaxFolderEntries) +
                               " entries; name the checkpoint's .safetensors file or its own "
                               "folder with `weights:`");
      if (entry.path().extension() == ".safetensors")
        files.push_back(entry.path().string());
    }
    if (files.size() > kMaxFiles)
      throw SafetensorsError(path + ": more than " + std::to_string(kMaxFiles) +
                             " .safetensors files");
    std::sort(files.begin(), files.end());
  }
  if (files.empty())
    throw SafetensorsError(path + ": no .safetensors file here (a Hugging Face checkpoint saved "
                                  "with save_pretrained(..., safe_serialization=True) has "
                                  "model.safetensors or model-*-of-*.safetensors); name the "
                                  "folder or file that holds them with `weights:` in opscope.yaml");
  for (const std::string& file : files)
    add_file(file);
  if (unreadable_.size() == files.size())
    throw SafetensorsError(unreadable_.begin()->second);
  for (const auto& [name, held] : tensors_)
    missing_by_index_.erase(name);
}

void SafetensorsCheckpoint::add_file(const std::string& file) {
  try {
    std::uint64_t size = 0;
    SafetensorsHeader header = read_header(file, size);
    for (auto& [name, tensor] : header.tensors)
      tensors_[name].push_back({name, file, std::move(tensor)});
  } catch (const SafetensorsError& e) {
    unreadable_.emplace(file, e.what());
  }
}

CheckpointTensor SafetensorsCheckpoint::find(const std::string& name,
                                             const std::vector<std::string>& aliases) const {
  std::vector<std::string> candidates{name};
  candidates.insert(candidates.end(), aliases.begin(), aliases.end());
  for (std::size_t i = 0, n = candidates.size(); i < n; ++i)
    if (std::size_t dot = candidates[i].find('.'); dot != std::string::npos)
      candidates.push_back(candidates[i].substr(dot + 1));
  for (const std::string& candidate : candidates) {
    auto it = tensors_.find(candidate);
    if (it != tensors_.end()) {
      if (it->second.size() > 1)
        throw SafetensorsError("'" + candidate + "' is in both " + it->second[0].file + " and " +
                               it->second[1].file + "; name one checkpoint with `weights:`");
      return it->second.front();
    }
    if (auto missing = missing_by_index_.find(candidate); missing != missing_by_index_.end()) {
      auto why = unreadable_.find(missing->second);
      throw SafetensorsError("'" + candidate + "': " +
                             (why != unreadable_.end() ? why->second
                                                       : missing->second + " does not hold it, "
                                                                           "though the index "
                                                                           "says so"));
    }
  }
  throw SafetensorsError("'" + name + "' is not in the checkpoint " + path_ +
                         " (nor under another of its names); is it this model's checkpoint?");
}

std::shared_ptr<const MappedBytes> SafetensorsCheckpoint::map(const CheckpointTensor& t) const {
  const std::size_t size = static_cast<std::size_t>(t.tensor.end - t.tensor.begin);
  if (size == 0)
    return std::make_shared<const MappedBytes>(nullptr, 0, nullptr, 0);
  try {
    support::RegularFile in(t.file);
    if (in.size() < t.tensor.end)
      throw SafetensorsError(t.file + ": shorter than when its header was read (" +
                             std::to_string(in.size()) + " bytes); was it rewritten meanwhile?");
    static const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    const std::uint64_t start = t.tensor.begin / page * page;
    const std::size_t length = static_cast<std::size_t>(t.tensor.end - start);
    // Private and writable: a write (none is meant) copies a page instead of faulting.
    void* mapping = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE, in.fd(),
                           static_cast<off_t>(start));
    if (mapping == MAP_FAILED)
      throw SafetensorsError(t.file + ": cannot map tensor '" + t.name + "' (" +
                             std::to_string(size) + " bytes) into memory");
    return std::make_shared<const MappedBytes>(
        mapping, length, static_cast<const char*>(mapping) + (t.tensor.begin - start), size);
  } catch (const support::FileReadError& e) {
    throw SafetensorsError(e.what());
  }
}

} // namespace opscope::weights
