#include "store/catalog/catalog_header.h"

#include <algorithm>
#include <vector>

namespace dumpsyms {
namespace {

// Whether `text` holds a byte a page must not be handed: NUL and the other
// control bytes (a tab is allowed: some generators write one).
bool hasControlBytes(std::string_view text) {
  return std::any_of(text.begin(), text.end(), [](char c) {
    unsigned char byte = static_cast<unsigned char>(c);
    return (byte < 0x20 && byte != '\t') || byte == 0x7f;
  });
}

// The next space-separated field of `line` (consumed), "" when none.
std::string_view takeField(std::string_view& line) {
  size_t end = line.find(' ');
  std::string_view field = line.substr(0, end);
  line = end == std::string_view::npos ? std::string_view() : line.substr(end + 1);
  return field;
}

// The complete lines of `text` (without '\n' and a trailing '\r').
std::vector<std::string_view> completeLines(std::string_view text) {
  std::vector<std::string_view> lines;
  bool whole_file = text.size() < kCatalogHeaderBytes;
  while (!text.empty()) {
    size_t end = text.find('\n');
    if (end == std::string_view::npos && !whole_file)
      break; // cut by the read: not a line we can trust
    std::string_view line = text.substr(0, end);
    if (line.ends_with('\r'))
      line.remove_suffix(1);
    lines.push_back(line);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
  }
  return lines;
}

} // namespace

std::optional<CatalogEntry> parseCatalogHeader(std::string_view text) {
  std::vector<std::string_view> lines = completeLines(text);
  if (lines.empty())
    return std::nullopt;
  std::string_view module = lines[0];
  if (!module.starts_with("MODULE ") || hasControlBytes(module))
    return std::nullopt;
  module.remove_prefix(7);
  CatalogEntry entry;
  entry.os = takeField(module);
  entry.cpu = takeField(module);
  entry.debug_id = takeField(module);
  entry.debug_file = module; // the rest: a name may hold spaces
  if (entry.os.empty() || entry.cpu.empty() || entry.debug_id.empty() || entry.debug_file.empty())
    return std::nullopt;

  bool have_code_id = false;
  for (size_t i = 1; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (!line.starts_with("INFO "))
      break; // INFO lines follow MODULE; the records start here
    line.remove_prefix(5);
    if (line.size() > kMaxCatalogInfoLine || hasControlBytes(line))
      continue;
    if (line.starts_with("CODE_ID ")) {
      if (have_code_id)
        continue; // the first one is the module's
      line.remove_prefix(8);
      entry.code_id = takeField(line);
      entry.code_file = line;
      have_code_id = !entry.code_id.empty();
      if (!have_code_id)
        entry.code_file.clear();
      continue;
    }
    if (entry.info.size() < kMaxCatalogInfoLines)
      entry.info.emplace_back(line);
  }
  return entry;
}

} // namespace dumpsyms
