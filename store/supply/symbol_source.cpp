#include "store/supply/symbol_source.h"

#include "common/errors/file_error.h"
#include "store/layout/layout.h"
#include "symbol_file/text/text_stream.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <unistd.h>
#include <vector>

namespace dumpsyms {

namespace {

llvm::Expected<std::string> fetchSymbols(const SymbolSourceQuery& query) {
  std::string what = "the symbol servers";
  if (query.module.empty())
    return fileError(what, "say which module to fetch with --module NAME");
  if (query.id.empty())
    return fileError(what, "say which build of " + query.module + " to fetch with --id ID");
  std::string why;
  auto fetched = query.servers->find({query.module, query.id, "", ""}, why);
  if (!fetched)
    return fileError(query.module + " " + query.id, why);
  return fetched->path;
}

} // namespace

llvm::Expected<std::string> findSymbolFile(const SymbolSourceQuery& query) {
  std::string found = query.path;
  bool store_lacks_it =
      query.path.empty() ||
      (llvm::sys::fs::is_directory(query.path) && !query.module.empty() &&
       (query.id.empty()
            ? storedDebugIds(query.path, query.module).empty()
            : !llvm::sys::fs::exists(symbolFilePath(query.path, query.module, query.id))));
  if (query.servers && store_lacks_it) {
    auto path = fetchSymbols(query);
    if (!path)
      return path.takeError();
    found = *path;
  } else if (query.path.empty()) {
    return fileError("symtool", "no symbol file, store or symbol server given");
  } else if (llvm::sys::fs::is_directory(query.path)) {
    if (query.module.empty())
      return fileError(query.path, "is a symbol store: say which module with --module NAME");
    std::string id = query.id;
    if (id.empty()) {
      std::vector<std::string> ids = storedDebugIds(query.path, query.module);
      if (ids.empty())
        return fileError(query.path, "holds no module named " + query.module);
      if (ids.size() > 1) {
        std::string list;
        for (const std::string& one : ids)
          list += " " + one;
        return fileError(query.path, "holds " + std::to_string(ids.size()) + " builds of " +
                                         query.module + ": say which with --id (" + list.substr(1) +
                                         ")");
      }
      id = ids.front();
    }
    found = symbolFilePath(query.path, query.module, id);
  }
  return found;
}

llvm::Expected<ParsedSymbolFile> parseSymbolFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return fileError(path, std::string("cannot read it: ") + std::strerror(errno));
  auto parsed = readSymbolFileStream(fd, path);
  ::close(fd);
  if (!parsed)
    return parsed.takeError();
  if (parsed->module.name.empty())
    return fileError(path, "is not a symbol file (no MODULE record)");
  return parsed;
}

llvm::Expected<LoadedSymbols> openSymbols(const std::string& path, const IndexCacheOptions& index) {
  auto opened = openSymbolIndex(path, index);
  if (!opened)
    return opened.takeError();
  auto rebuild = [path, index]() -> llvm::Expected<std::unique_ptr<IndexFile>> {
    auto fresh = rebuildSymbolIndex(path, index);
    if (!fresh)
      return fresh.takeError();
    return std::move(fresh->index);
  };
  auto lookup = AddressLookup::open(std::move(opened->index), rebuild);
  if (!lookup)
    return lookup.takeError();
  return LoadedSymbols{path, std::move(*lookup), opened->source, opened->note};
}

llvm::Expected<LoadedSymbols> loadSymbols(const SymbolSourceQuery& query) {
  auto path = findSymbolFile(query);
  if (!path)
    return path.takeError();
  return openSymbols(*path, query.index);
}

} // namespace dumpsyms
