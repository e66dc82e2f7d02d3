#include "dump/release/dump_into_store.h"

#include "common/files/atomic_file.h"
#include "common/files/file_compare.h"
#include "dump/flows/dump_module.h"
#include "dump/release/kept_binaries.h"
#include "store/layout/code_id_index.h"
#include "store/layout/layout.h"
#include "symbol_file/index/index_cache.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <unistd.h>

namespace dumpsyms {
namespace {

// Writes the file through a temporary as writeFileAtomically does, but
// leaves a file already there with the same bytes alone (its mtime, and so
// the ETag a server gives it, stay): a store getting the binaries of modules
// it has rewrites no .sym. Returns whether the file was written.
llvm::Expected<bool> writeUnlessSame(const std::string& path,
                                     const std::function<void(std::ostream&)>& write) {
  auto file = writeTemporary(path, write);
  if (!file)
    return file.takeError();
  int existing = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (existing >= 0) {
    bool same = sameFileBytes(file->fd(), existing);
    ::close(existing);
    if (same)
      return false; // the temporary goes with `file`
  }
  if (llvm::Error error = file->commit())
    return error;
  return true;
}

} // namespace

ManifestEntry dumpIntoStore(const Options& options) {
  ManifestEntry entry;
  entry.path = options.binary;
  Diagnostics diagnostics;
  DumpFacts facts;
  auto module = dumpModule(options, diagnostics, nullptr, &facts);
  entry.warnings = diagnostics.warnings();
  if (!module) {
    entry.error = llvm::toString(module.takeError());
    return entry;
  }
  entry.module = module->name;
  entry.cpu = module->cpu;
  entry.debug_id = module->debug_id;
  entry.code_id = module->code_id;
  entry.debug_info_from = facts.debug_info_from;
  entry.debug_file = facts.debug_file;
  entry.debug_file_how = facts.debug_file_how;
  entry.sym =
      moduleRelativePath(module->name, module->debug_id, module->code_file, module->code_id);
  std::string path = options.store + "/" + entry.sym;
  if (std::error_code error =
          llvm::sys::fs::create_directories(llvm::sys::path::parent_path(path))) {
    entry.error = path + ": cannot create the directory: " + error.message();
    return entry;
  }
  RecordCounts counts;
  WriteOptions write_options = writeOptions(options);
  auto writeSymbols = [&](std::ostream& out) {
    counts = writeSymbolFile(*module, write_options, out);
  };
  bool sym_unchanged = false;
  if (options.keep_binaries) {
    // The plan dumps a module the store has when its binaries are missing.
    auto written = writeUnlessSame(path, writeSymbols);
    if (!written) {
      entry.error = llvm::toString(written.takeError());
      return entry;
    }
    sym_unchanged = !*written;
  } else if (llvm::Error error = writeFileAtomically(path, writeSymbols)) {
    entry.error = llvm::toString(std::move(error));
    return entry;
  }
  // Its index, for lookups that map rather than parse (a failure costs
  // only the speed of the first lookup: a warning).
  if (options.write_index)
    if (llvm::Error error = writeIndexBeside(path))
      entry.warnings.push_back(llvm::toString(std::move(error)));
  // Windows modules also under their code id, for dumps that lack their
  // debug id (a failure here costs only that lookup: a warning).
  // (a .sym left as it was keeps its link, when it has one)
  bool linked = sym_unchanged &&
                llvm::sys::fs::exists(options.store + "/" +
                                      codeIdRelativePath(module->code_file, module->code_id));
  if (!module->code_file.empty() && !module->debug_id.isNull() && !linked)
    if (llvm::Error error =
            linkCodeId(options.store, module->code_file, module->code_id, entry.sym))
      entry.warnings.push_back(llvm::toString(std::move(error)));
  if (options.keep_binaries) {
    std::string debug_file = facts.debug_info_from == "debug-file" ? facts.debug_file : "";
    auto kept = keptBinaries(options.binary, debug_file, *module, options.debug_dirs,
                             !options.no_debuginfod);
    auto paths = kept ? keepBinaries(options.store, *kept)
                      : llvm::Expected<std::vector<std::string>>(kept.takeError());
    if (!paths) {
      entry.error = llvm::toString(paths.takeError());
      return entry;
    }
    entry.warnings.insert(entry.warnings.end(), kept->warnings.begin(), kept->warnings.end());
    entry.kept = std::move(*paths);
  }
  entry.records = counts;
  if (sym_unchanged) {
    entry.status = EntryStatus::Exists;
    return entry;
  }
  // (a PE dumped without its PDB has PUBLIC and STACK CFI records only:
  // `"debug": {"from": "pe-only"}` in the manifest says so)
  entry.status = facts.debug_info_from == "none" || facts.debug_info_from == "pe-only"
                     ? EntryStatus::NoDebugInfo
                     : EntryStatus::Written;
  return entry;
}

} // namespace dumpsyms
