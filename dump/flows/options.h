// Everything the command line can ask for.
#pragma once

#include "common/ids/code_id.h"
#include "common/ids/debug_id.h"
#include "dump/object/demangle.h"

#include <optional>
#include <string>
#include <vector>

namespace dumpsyms {

struct Options {
  std::string binary;
  std::vector<std::string> debug_dirs;
  std::string output; // "" = stdout
  std::string store;  // --store DIR: DIR/<name>/<ID>/<name>.sym

  bool header_only = false;                 // -i
  bool absolute_addresses = false;          // -a
  bool no_cfi = false;                      // -c
  bool inlines = false;                     // -d / --inlines
  bool mark_multiple = false;               // -m
  bool verbose = false;                     // -v
  bool quiet = false;                       // --quiet
  std::optional<DebugId> debug_id_override; // -b
  std::optional<std::string> name_override; // -n
  std::string os;    // -o; "": the format's ("Linux" for ELF, "mac" for Mach-O)
  unsigned jobs = 0; // -j, 0 = one per core

  std::string arch;       // --arch: the slice of a universal Mach-O file
  std::string debug_file; // --debug-file
  bool pe_only = false;   // --pe-only: a PE dumped without its PDB
  // --symbol-server SPEC...: Windows symbol servers and stores PDBs and PEs
  // are fetched from, before those of $_NT_SYMBOL_PATH.
  std::vector<std::string> symbol_servers;
  CodeId code_id;        // --code-id: a PDB's PE to fetch
  std::string code_file; // --code-file
  std::string dwp;       // --dwp
  bool no_debuginfod = false;

  std::string linux_gate; // --linux-gate intel|amd
  bool vdso = false;      // --vdso

  NameStyle names = NameStyle::Llvm; // --names llvm|breakpad
  // --map-prefix OLD=NEW, in the order given: the first match rewrites a
  // FILE record's path.
  std::vector<std::string> path_prefix_map;
  bool check_cfi = false;   // --check-cfi: fail when no STACK CFI is written
  bool write_index = false; // symstore add --index: the lookup index beside the .sym
  // symstore add --keep-binaries: the executable and its debug file (or
  // PDB, PE) kept in the store beside the .sym, for debuginfod and
  // Microsoft symbol-server clients of `symstore serve`.
  bool keep_binaries = false;
  bool no_cross_unit_references = false; // -r: Breakpad's; accepted, has no effect
};

} // namespace dumpsyms
