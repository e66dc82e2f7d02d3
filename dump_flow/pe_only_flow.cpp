#include "dump_flow/pe_only_flow.h"

#include "dump_flow/pe_unwind_rules.h"
#include "dump_flow/windows_flow.h"
#include "pdb/breakpad_pdb_names.h"
#include "pdb/windows_names.h"
#include "pe/pe_exports.h"
#include "pe/pe_image.h"
#include "symbol_writer/module_builder.h"

#include <llvm/BinaryFormat/COFF.h>

namespace dumpsyms {

using namespace llvm;

Expected<Module> dumpPeOnlyModule(const PeImage& pe, const Options& options,
                                  Diagnostics& diagnostics) {
  auto identity = peIdentity(pe);
  if (!identity)
    return identity.takeError();
  Module header = std::move(*identity);
  if (options.debug_id_override)
    header.debug_id = *options.debug_id_override;
  header.load_address = 0; // RVAs
  if (options.header_only)
    return header;
  bool x86 = header.cpu == "x86";
  bool breakpad_names = options.names == NameStyle::Breakpad;

  ModuleBuilder builder(std::move(header));
  PeExports exports = readPeExports(pe);
  for (std::string& problem : exports.problems)
    diagnostics.warn(pe.path() + ": " + problem);
  for (const PeExport& symbol : exports.exports) {
    if (breakpad_names) {
      BreakpadPdbName named = breakpadNameOfDecorated(symbol.name);
      builder.addCodeSymbol({symbol.rva, 0, std::move(named.name), named.stack_parameter_size});
    } else {
      UndecoratedName named = undecorateName(symbol.name, x86);
      builder.addCodeSymbol({symbol.rva, 0, std::move(named.name), named.stack_parameter_size});
    }
  }
  if (!options.no_cfi)
    addPeUnwindRules(pe, builder, diagnostics);
  BuildOptions build_options;
  build_options.mark_multiple = options.mark_multiple;
  build_options.threads = options.jobs;
  BuildStats stats;
  Module module = std::move(builder).finish(build_options, stats);
  if (options.check_cfi && module.cfi_frames.empty())
    return createStringError(inconvertibleErrorCode(),
                             "%s: no STACK CFI records (--check-cfi): the PE alone has no x64 "
                             "or ARM64 exception directory",
                             pe.path().c_str());
  return module;
}

} // namespace dumpsyms
