#include "server/downloads/code_id_redirect.h"

#include "server/downloads/debuginfod_files.h"
#include "server/downloads/download_routes.h"
#include "server/downloads/symbol_file_header.h"
#include "store/layout/layout.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/ADT/StringRef.h>

namespace dumpsyms {
namespace {

// Debug ids are a GUID or build-id prefix and an age: 33 hex digits or
// more. The code ids the index files Windows modules under are a
// TimeDateStamp and a SizeOfImage, 16 digits at most, so a path keyed by a
// debug id is never an index entry and needs no look at its MODULE line.
bool looksLikeDebugId(llvm::StringRef id) {
  return id.size() >= 33 && llvm::all_of(id, [](char c) { return llvm::isHexDigit(c); });
}

std::string lastComponent(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// `target`, if the store holds a file there.
llvm::Expected<std::optional<std::string>> ifStored(StoreBackend& store,
                                                    const std::string& target) {
  llvm::Expected<std::optional<FoundStoreFile>> there = statStoreFile(store, target);
  if (!there)
    return there.takeError();
  if (!*there)
    return std::nullopt;
  return target;
}

// Where the module `header` describes has its symbol file, if the store
// holds it there.
llvm::Expected<std::optional<std::string>> debugIdPath(StoreBackend& store,
                                                       const SymbolFileHeader& header) {
  return ifStored(store, symbolFileRelativePath(header.debug_file, header.debug_id));
}

// The asked path is a file of the store: a code-id index entry (whose
// MODULE names another path) redirects; any other file is served.
llvm::Expected<std::optional<std::string>> fromIndexEntry(StoreBackend& store,
                                                          const FoundStoreFile& found) {
  llvm::Expected<std::optional<SymbolFileHeader>> header =
      readStoredSymbolHeader(store, found.relative);
  if (!header)
    return header.takeError();
  if (!*header || (*header)->debug_id.isNull())
    return std::nullopt; // a null-id module lives at its code-id path
  std::string target = symbolFileRelativePath((*header)->debug_file, (*header)->debug_id);
  if (llvm::StringRef(target).equals_insensitive(found.relative))
    return std::nullopt;
  return debugIdPath(store, **header);
}

// Tecken's form: the index entry of <code_file>/<CODE_ID>, if its module's
// symbol file is called `name`.
llvm::Expected<std::optional<std::string>>
fromTeckenForm(StoreBackend& store, const std::vector<std::string>& components) {
  llvm::Expected<std::optional<FoundStoreFile>> entry =
      findStoreFile(store, {components[0], components[1], components[0] + ".sym"},
                    /*module_any_case=*/false);
  if (!entry)
    return entry.takeError();
  if (!*entry)
    return std::nullopt;
  llvm::Expected<std::optional<SymbolFileHeader>> header =
      readStoredSymbolHeader(store, (*entry)->relative);
  if (!header)
    return header.takeError();
  if (!*header)
    return std::nullopt;
  std::string name =
      lastComponent(symbolFileRelativePath((*header)->debug_file, (*header)->debug_id));
  if (!llvm::StringRef(name).equals_insensitive(components[2]))
    return std::nullopt;
  if ((*header)->debug_id.isNull())
    return (*entry)->relative;
  return debugIdPath(store, **header);
}

// An ELF code id is the build id: the kept files' entry names the
// module's <debug_file>/<DEBUG_ID> directory.
llvm::Expected<std::optional<std::string>>
fromBuildIdEntry(StoreBackend& store, const std::vector<std::string>& components) {
  if (!isBuildIdText(components[1]))
    return std::nullopt;
  llvm::Expected<std::optional<BuildIdEntry>> entry =
      readBuildIdEntry(store, *BuildId::parseHex(components[1]));
  if (!entry)
    return entry.takeError();
  if (!*entry)
    return std::nullopt;
  const std::string& kept =
      (*entry)->executable.empty() ? (*entry)->debuginfo : (*entry)->executable;
  llvm::SmallVector<llvm::StringRef, 3> parts;
  llvm::StringRef(kept).split(parts, '/');
  if (parts.size() != 3)
    return std::nullopt;
  std::string target = symbolFileRelativePath(parts[0].str(), DebugId(parts[1].str()));
  std::string name = lastComponent(target);
  if (!llvm::StringRef(name).equals_insensitive(components[2]) &&
      !llvm::StringRef(components[2]).equals_insensitive(components[0] + ".sym"))
    return std::nullopt;
  return ifStored(store, target);
}

} // namespace

llvm::Expected<std::optional<std::string>>
codeIdRedirectTarget(StoreBackend& store, const std::vector<std::string>& components,
                     const std::optional<FoundStoreFile>& found) {
  if (components.size() != 3 || !llvm::StringRef(components[2]).ends_with_insensitive(".sym"))
    return std::nullopt;
  bool index_name = llvm::StringRef(components[2]).equals_insensitive(components[0] + ".sym");
  bool debug_id = looksLikeDebugId(components[1]);
  if (found) {
    // Only a file named and keyed as the index files its entries can be one.
    if (!index_name || debug_id)
      return std::nullopt;
    return fromIndexEntry(store, *found);
  }
  if (!index_name && !debug_id) {
    llvm::Expected<std::optional<std::string>> target = fromTeckenForm(store, components);
    if (!target || *target)
      return target;
  }
  return fromBuildIdEntry(store, components);
}

std::string locationOf(const std::string& relative) {
  std::string location = "/";
  for (unsigned char c : relative) {
    if (llvm::isAlnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
      location += static_cast<char>(c);
    } else {
      location += '%';
      location += llvm::hexdigit(c >> 4, /*LowerCase=*/false);
      location += llvm::hexdigit(c & 15, /*LowerCase=*/false);
    }
  }
  return location;
}

} // namespace dumpsyms
