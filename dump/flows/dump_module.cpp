#include "dump/flows/dump_module.h"

#include "dump/cfi/linux_gate.h"
#include "dump/flows/elf_flow.h"
#include "dump/flows/macho_flow.h"
#include "dump/flows/windows_flow.h"

namespace dumpsyms {

llvm::Expected<Module> dumpModule(const Options& options, Diagnostics& diagnostics,
                                  const DumpProgress& progress, DumpFacts* facts) {
  if (!options.linux_gate.empty())
    return linuxGateTemplate(options.linux_gate == "intel" ? LinuxGateVendor::Intel
                                                           : LinuxGateVendor::Amd);
  // PDB and PE input: a flow of its own, into the same model.
  if (!options.vdso && isWindowsInput(options.binary))
    return dumpWindowsModule(options, diagnostics, progress, facts);
  if (!options.vdso && isMachOInput(options.binary))
    return dumpMachOModule(options, diagnostics, progress, facts);
  return dumpElfModule(options, diagnostics, progress, facts);
}

WriteOptions writeOptions(const Options& options) {
  WriteOptions write;
  write.header_only = options.header_only;
  write.absolute_addresses = options.absolute_addresses;
  write.include_cfi = !options.no_cfi;
  write.threads = options.jobs;
  return write;
}

} // namespace dumpsyms
