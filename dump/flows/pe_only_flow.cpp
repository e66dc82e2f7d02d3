#include "dump/flows/pe_only_flow.h"

#include "dump/flows/pe_code_symbols.h"
#include "dump/flows/pe_unwind_rules.h"
#include "dump/flows/windows_flow.h"
#include "dump/pe/pe_image.h"
#include "symbol_file/model/module_builder.h"

#include <llvm/BinaryFormat/COFF.h>

namespace dumpsyms {

using namespace llvm;

Expected<Module> dumpPeOnlyModule(const PeImage& pe, const Options& options,
                                  Diagnostics& diagnostics) {
  auto identity = peDumpHeader(pe, options);
  if (!identity)
    return identity.takeError();
  Module header = std::move(*identity);
  header.load_address = 0; // RVAs
  if (options.header_only)
    return header;
  ModuleBuilder builder(std::move(header));
  for (CodeSymbol& symbol : peExportSymbols(pe, 0, options.names, diagnostics))
    builder.addCodeSymbol(std::move(symbol));
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
