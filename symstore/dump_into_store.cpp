#include "symstore/dump_into_store.h"

#include "dump_flow/dump_module.h"
#include "store/atomic_file.h"
#include "store/code_id_index.h"
#include "store/layout.h"
#include "symbol_index/index_cache.h"

#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

namespace dumpsyms {

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
  if (llvm::Error error = writeFileAtomically(path, [&](std::ostream& out) {
        counts = writeSymbolFile(*module, write_options, out);
      })) {
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
  if (!module->code_file.empty() && !isNullDebugId(module->debug_id))
    if (llvm::Error error =
            linkCodeId(options.store, module->code_file, module->code_id, entry.sym))
      entry.warnings.push_back(llvm::toString(std::move(error)));
  entry.records = counts;
  // (a PE dumped without its PDB has PUBLIC and STACK CFI records only:
  // `"debug": {"from": "pe-only"}` in the manifest says so)
  entry.status = facts.debug_info_from == "none" || facts.debug_info_from == "pe-only"
                     ? EntryStatus::NoDebugInfo
                     : EntryStatus::Written;
  return entry;
}

} // namespace dumpsyms
