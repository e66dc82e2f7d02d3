#include "lookup/symbol_source.h"

#include "object/elf_image.h"
#include "store/layout.h"

#include <algorithm>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
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

llvm::Expected<LoadedSymbols> loadSymbols(const SymbolSourceQuery& query) {
  LoadedSymbols loaded;
  loaded.path = query.path;
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
    loaded.path = *path;
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
    loaded.path = symbolFilePath(query.path, query.module, id);
  }
  auto buffer = llvm::MemoryBuffer::getFile(loaded.path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return fileError(loaded.path, "cannot read it: " + buffer.getError().message());
  loaded.parsed = readSymbolFile((*buffer)->getBuffer());
  if (loaded.parsed.module.name.empty())
    return fileError(loaded.path, "is not a symbol file (no MODULE record)");
  return loaded;
}

} // namespace dumpsyms
