#include "store/layout/layout.h"

#include <algorithm>
#include <llvm/ADT/SmallString.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

namespace dumpsyms {

std::string symbolFileRelativePath(const std::string& debug_file, const DebugId& debug_id) {
  llvm::StringRef stem(debug_file);
  if (stem.ends_with_insensitive(".pdb"))
    stem = stem.drop_back(4);
  return debug_file + "/" + debug_id.str() + "/" + stem.str() + ".sym";
}

std::string symbolFilePath(const std::string& store_root, const std::string& debug_file,
                           const DebugId& debug_id) {
  llvm::SmallString<256> path(store_root);
  llvm::sys::path::append(path, symbolFileRelativePath(debug_file, debug_id));
  return std::string(path);
}

std::string moduleRelativePath(const std::string& debug_file, const DebugId& debug_id,
                               const std::string& code_file, const CodeId& code_id) {
  if (debug_id.isNull() && !code_file.empty() && !code_id.empty() &&
      code_file.find('/') == std::string::npos && code_id.str().find('/') == std::string::npos &&
      code_file != "." && code_file != "..")
    return code_file + "/" + code_id.str() + "/" + code_file + ".sym";
  return symbolFileRelativePath(debug_file, debug_id);
}

std::string keptFileRelativePath(const std::string& debug_file, const DebugId& debug_id,
                                 const std::string& file_name) {
  return debug_file + "/" + debug_id.str() + "/" + file_name;
}

std::string keptFileRelativePath(const std::string& code_file, const CodeId& code_id,
                                 const std::string& file_name) {
  return code_file + "/" + code_id.str() + "/" + file_name;
}

std::string buildIdIndexRelativePath(const BuildId& build_id) {
  // debuginfod clients send the id in lower case; the index is spelled
  // that way so a lookup needs no listing.
  std::string id = build_id.hex();
  if (id.size() <= 2)
    return ".build-id/" + id;
  return ".build-id/" + id.substr(0, 2) + "/" + id.substr(2);
}

std::string formatBuildIdEntry(const BuildIdEntry& entry) {
  std::string text;
  if (!entry.executable.empty())
    text += "executable " + entry.executable + "\n";
  if (!entry.debuginfo.empty())
    text += "debuginfo " + entry.debuginfo + "\n";
  return text;
}

std::optional<BuildIdEntry> parseBuildIdEntry(const std::string& text) {
  BuildIdEntry entry;
  llvm::StringRef rest(text);
  while (!rest.empty()) {
    auto [line, after] = rest.split('\n');
    rest = after;
    auto [key, path] = line.split(' ');
    std::string* field = key == "executable"  ? &entry.executable
                         : key == "debuginfo" ? &entry.debuginfo
                                              : nullptr;
    // A repeated key or a path a client could not name is not an entry
    // we wrote: refuse it rather than follow it.
    if (!field || !field->empty() || !isSafeRelativePath(path.str()))
      return std::nullopt;
    *field = path.str();
  }
  if (entry.executable.empty() && entry.debuginfo.empty())
    return std::nullopt;
  return entry;
}

bool isSafeRelativePath(const std::string& path) {
  if (path.empty())
    return false;
  for (unsigned char c : path)
    if (c < 0x20 || c == 0x7f || c == '\\' || c == ':')
      return false;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos)
      end = path.size();
    // An empty component, ".", ".." and every hidden name are refused, so
    // the store's internal dot-directories (.incoming, .uploads, .build-id)
    // are never named by a client.
    if (end == start || path[start] == '.')
      return false;
    start = end + 1;
  }
  return true;
}

std::vector<DebugId> storedDebugIds(const std::string& store_root, const std::string& debug_file) {
  llvm::SmallString<256> dir(store_root);
  llvm::sys::path::append(dir, debug_file);
  std::vector<DebugId> ids;
  std::error_code error;
  for (llvm::sys::fs::directory_iterator it(dir, error), end; it != end && !error;
       it.increment(error))
    ids.emplace_back(llvm::sys::path::filename(it->path()).str());
  std::sort(ids.begin(), ids.end());
  return ids;
}

} // namespace dumpsyms
