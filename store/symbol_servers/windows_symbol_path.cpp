#include "store/symbol_servers/windows_symbol_path.h"

#include <cctype>
#include <llvm/ADT/StringRef.h>

namespace dumpsyms {

namespace {

std::string trim(const std::string& text) {
  size_t start = 0, end = text.size();
  while (start < end && std::isspace(static_cast<unsigned char>(text[start])))
    ++start;
  while (end > start && std::isspace(static_cast<unsigned char>(text[end - 1])))
    --end;
  return text.substr(start, end - start);
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    size_t at = text.find(separator, start);
    parts.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos)
      return parts;
    start = at + 1;
  }
}

bool startsWithWord(const std::string& entry, const char* word) {
  size_t n = std::char_traits<char>::length(word);
  if (entry.size() < n || entry[n - 1] != '*')
    return false;
  for (size_t i = 0; i + 1 < n; ++i)
    if (std::tolower(static_cast<unsigned char>(entry[i])) != word[i])
      return false;
  return true;
}

} // namespace

std::vector<WindowsSymbolSource> parseWindowsSymbolPath(const std::string& path,
                                                        const std::string& default_cache) {
  std::vector<WindowsSymbolSource> sources;
  std::vector<std::string> shared_caches; // from cache* entries, for those after
  for (std::string entry : split(path, ';')) {
    entry = trim(entry);
    if (entry.empty())
      continue;
    if (startsWithWord(entry, "cache*")) {
      std::string dir = trim(entry.substr(6));
      shared_caches.push_back(dir.empty() ? default_cache : dir);
      continue;
    }
    bool srv = startsWithWord(entry, "srv*");
    bool symsrv = startsWithWord(entry, "symsrv*");
    WindowsSymbolSource source;
    source.caches = shared_caches;
    if (srv || symsrv) {
      std::vector<std::string> parts = split(entry, '*');
      // srv*A*B*SERVER, symsrv*DLL*A*B*SERVER
      size_t first = symsrv ? 2 : 1;
      if (parts.size() <= first || trim(parts.back()).empty())
        continue; // no server: nothing to ask
      source.server = true;
      source.location = trim(parts.back());
      bool cached = false;
      for (size_t i = first; i + 1 < parts.size(); ++i) {
        std::string cache = trim(parts[i]);
        source.caches.push_back(cache.empty() ? default_cache : cache);
        cached = true;
      }
      if (!cached && source.caches.empty())
        source.caches.push_back(default_cache);
    } else {
      source.location = entry;
    }
    sources.push_back(std::move(source));
  }
  return sources;
}

std::vector<WindowsSymbolSource> parseSymbolServerSpec(const std::string& spec,
                                                       const std::string& default_cache) {
  std::string entry = trim(spec);
  if (entry.find('*') == std::string::npos &&
      (entry.rfind("http://", 0) == 0 || entry.rfind("https://", 0) == 0))
    entry = "srv*" + entry;
  return parseWindowsSymbolPath(entry, default_cache);
}

FilePointer parseFilePointer(const std::string& answer) {
  FilePointer pointer;
  std::string text = trim(answer);
  if (text.rfind("PATH:", 0) == 0) {
    std::string where = trim(text.substr(5));
    if (where.empty() || where.find('\n') != std::string::npos ||
        where.find('\0') != std::string::npos)
      pointer.message = "a file.ptr whose PATH is not one path";
    else
      pointer.path = where;
  } else if (text.rfind("MSG:", 0) == 0) {
    pointer.message = trim(text.substr(4));
  } else {
    pointer.message = "a file.ptr that says neither PATH: nor MSG:";
  }
  return pointer;
}

std::string pdbServerKey(const DebugId& debug_id) {
  return llvm::StringRef(debug_id.str()).upper();
}

} // namespace dumpsyms
