// PUT of what `symstore add --keep-binaries` keeps beside the .sym files,
// as `symstore upload --protocol put` sends it after them: a kept binary
// or debug file in a module's directory, and a `.build-id` entry naming
// kept files. Neither is parsed as a .sym; each is taken only where the
// store already knows the module: a kept file only in a directory that
// holds the module's .sym (or, for a PE at its SSQP path
// <code_file>/<CODE_ID>/<code_file>, the code-id copy of its .sym), an entry
// only when it parses and every file it names is in the store.
#include "common/limits/input_limits.h"
#include "dump/release/kept_file_identity.h"
#include "server/ingest/upload_handlers.h"
#include "store/layout/code_id_index.h"
#include "store/layout/layout.h"
#include "symbol_file/index/index_path.h"

#include <algorithm>
#include <fstream>
#include <llvm/ADT/StringRef.h>
#include <sstream>

namespace dumpsyms {

namespace {

constexpr llvm::StringLiteral kBuildIdPrefix = ".build-id/";
// An entry is two store paths (`symstore add` writes under 1.6 KiB).
constexpr uint64_t kMaxBuildIdEntryBytes = 64 * 1024;

std::optional<UploadRefusal> storeHas(StoreBackend& store, const std::string& relative, bool& has) {
  auto info = store.stat(relative);
  if (!info)
    return UploadRefusal{500, "the store: " + llvm::toString(info.takeError())};
  has = info->has_value();
  return std::nullopt;
}

// Whether `path` is the index path of a lower-case hex build id.
bool isBuildIdEntryPath(llvm::StringRef path) {
  llvm::StringRef rest = path;
  if (!rest.consume_front(kBuildIdPrefix))
    return false;
  std::string id = rest.str();
  id.erase(std::remove(id.begin(), id.end(), '/'), id.end());
  return id.size() >= 4 && id.size() % 2 == 0 && id.size() <= 128 &&
         id.find_first_not_of("0123456789abcdef") == std::string::npos &&
         buildIdIndexRelativePath(*BuildId::parseHex(id)) == path;
}

// The file is the build its path names: an ELF file's build id, a PDB's
// GUID and age, a PE's code id (or its PDB's id), a Mach-O slice's UUID
// must be the path's ID. A dwz file (<name>.dwz) has a build id of its own:
// it need only be an ELF file.
std::optional<UploadRefusal> checkKeptFileIdentity(const std::string& spooled,
                                                   const std::string& path, const std::string& id,
                                                   const std::string& name) {
  auto identity = keptFileIdentity(spooled, path);
  if (!identity)
    return UploadRefusal{422, llvm::toString(identity.takeError())};
  if (llvm::StringRef(name).ends_with(".dwz"))
    return identity->kind == "ELF"
               ? std::nullopt
               : std::optional<UploadRefusal>(UploadRefusal{
                     422, path + ": a dwz file must be an ELF file, not " + identity->kind});
  if (identity->unchecked)
    return std::nullopt;
  std::string wanted = llvm::StringRef(id).upper();
  for (const std::string& own : identity->ids)
    if (own == wanted)
      return std::nullopt;
  std::string ids;
  for (const std::string& own : identity->ids)
    ids += (ids.empty() ? "" : " or ") + own;
  return UploadRefusal{422, path + ": this " + identity->kind + " file is of build " +
                                (ids.empty() ? std::string("(none named)") : ids) + ", not " + id +
                                " (another build's file)"};
}

} // namespace

ServerResponse handleKeptFilePut(SymbolPublisher& publisher, ServerRequest& request,
                                 const std::string& path) {
  StoreBackend& store = publisher.store();
  if (llvm::StringRef(path).starts_with(kBuildIdPrefix)) {
    if (!isBuildIdEntryPath(path))
      return publisher.refuse({400, "'" + path + "' is not a build-id entry's path"});
    if (request.body_size > kMaxBuildIdEntryBytes)
      return publisher.refuse(
          {413, limits::overLimit("a build-id entry", kMaxBuildIdEntryBytes, "bytes")});
    auto body = spoolBody(publisher, request);
    if (auto* refusal = std::get_if<UploadRefusal>(&body))
      return publisher.refuse(*refusal);
    CheckedSymbolFile file{std::move(std::get<SpoolFile>(body)), {}};
    std::ifstream in(file.spool.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    auto entry = parseBuildIdEntry(text.str());
    if (!entry || file.spool.size() > kMaxBuildIdEntryBytes)
      return publisher.refuse(
          {422, path + ": not a build-id entry (executable PATH, debuginfo PATH)"});
    for (const std::string* named : {&entry->executable, &entry->debuginfo}) {
      if (named->empty())
        continue;
      bool has = false;
      if (auto refusal = storeHas(store, *named, has))
        return publisher.refuse(*refusal);
      if (!has)
        return publisher.refuse({422, path + ": names " + *named +
                                          ", which the store does not hold (upload it first)"});
    }
    file.facts.store_path = path;
    return publishAsPutAnswers(publisher, file);
  }

  if (auto refusal = checkClientPath(path))
    return publisher.refuse(*refusal);
  if (isSymbolIndexPath(path))
    return publisher.refuse({415, path + ": a symbol index is built by the store, not uploaded"});
  llvm::SmallVector<llvm::StringRef, 3> parts;
  llvm::StringRef(path).split(parts, '/');
  if (parts.size() != 3)
    return publisher.refuse(
        {415, path + ": only .sym files and the files kept beside them are taken"});
  std::string module = parts[0].str(), id = parts[1].str(), name = parts[2].str();
  bool known = false;
  if (auto refusal = storeHas(store, symbolFileRelativePath(module, DebugId(id)), known))
    return publisher.refuse(*refusal);
  if (!known && name == module)
    if (auto refusal = storeHas(store, codeIdRelativePath(module, CodeId(id)), known))
      return publisher.refuse(*refusal);
  if (!known)
    return publisher.refuse({422, path + ": the store holds no symbol file of " + module + " " +
                                      id + " to keep it beside (upload the .sym first)"});
  auto body = spoolBody(publisher, request);
  if (auto* refusal = std::get_if<UploadRefusal>(&body))
    return publisher.refuse(*refusal);
  CheckedSymbolFile file{std::move(std::get<SpoolFile>(body)), {}};
  if (auto refusal = checkKeptFileIdentity(file.spool.path(), path, id, name))
    return publisher.refuse(*refusal);
  file.facts.store_path = path;
  return publishAsPutAnswers(publisher, file);
}

} // namespace dumpsyms
