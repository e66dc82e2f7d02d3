// symstore add --keep-binaries: the binaries and debug files a module is
// dumped from, kept in the store beside its .sym (paths from store/layout/layout.h),
// so that `symstore serve` can answer debuginfod clients (gdb, lldb,
// debuginfod-find) and Microsoft symbol-server clients (SSQP) from it.
//
//   ELF     the file -> <module>/<DEBUG_ID>/<file name>; a separate debug file
//           -> <file name>.debug beside it; the .build-id index entry naming
//           them (only when the file has a GNU build id: without one the
//           module's id is a hash of .text that no debuginfod client asks for);
//           the dwz supplementary file its DWARF refers to -> <file name>.dwz
//           beside them, with an entry under that file's build id (gdb asks
//           debuginfod for it). Kept beside each module that uses it, so that
//           every file of the store sits beside a .sym.
//   PE      the file -> <code_file>/<CODE_ID>/<code_file> (SSQP's path); its
//           PDB -> <pdb>/<DEBUG_ID>/<pdb>.
//   PDB     dumped alone: itself at <pdb>/<DEBUG_ID>/<pdb>.
//   Mach-O  the file (a universal file whole, under each slice's id) ->
//           <module>/<DEBUG_ID>/<file name>; the dSYM's DWARF file ->
//           <file name>.dwarf beside it.
#pragma once

#include "store/layout/layout.h"
#include "symbol_file/model/module.h"

#include <llvm/Support/Error.h>
#include <optional>
#include <string>
#include <vector>

namespace dumpsyms {

struct KeptFile {
  std::string source;   // the local file copied
  std::string relative; // where it goes in the store
};

struct KeptBinaries {
  std::vector<KeptFile> files;
  // .build-id index entries (path, entry): an ELF module's by its build
  // id, and its dwz supplementary file's by that file's own.
  std::vector<std::pair<std::string, BuildIdEntry>> build_id_entries;
  // Files that cannot be kept (a name no client could ask for).
  std::vector<std::string> warnings;
};

// What --keep-binaries keeps of the module `identity` (MODULE and INFO
// fields) dumped from `binary`, whose separate debug file (a PDB, an ELF
// debug file, a dSYM's DWARF) is `debug_file` ("" when none was read). An
// ELF's dwz supplementary file is looked for as the dump looks for it (in
// `debug_dirs` too, and with debuginfod when `debuginfod` allows).
llvm::Expected<KeptBinaries> keptBinaries(const std::string& binary, const std::string& debug_file,
                                          const Module& identity,
                                          const std::vector<std::string>& debug_dirs,
                                          bool debuginfod);

// Whether every file and the index entry of `kept` are in the store.
bool keptBinariesPresent(const std::string& store, const KeptBinaries& kept);

// The store-relative paths `kept` names (files, then the index entry).
std::vector<std::string> keptPaths(const KeptBinaries& kept);

// Copies the files and writes the index entry into the store, each
// atomically, leaving alone what is there with the same bytes. Modules that
// share a build id (one executable under two names) share its entry: it
// names the one whose executable's path sorts first, whichever order the
// dumps run in. Returns keptPaths(kept).
llvm::Expected<std::vector<std::string>> keepBinaries(const std::string& store,
                                                      const KeptBinaries& kept);

} // namespace dumpsyms
