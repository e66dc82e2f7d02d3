#include "dump/flows/elf_flow.h"

#include "dump/cfi/unwind_info_reader.h"
#include "dump/dwarf/debug_info_reader.h"
#include "dump/flows/elf_inputs.h"
#include "dump/flows/finish_dump.h"
#include "dump/flows/path_prefix_map.h"
#include "dump/object/cpu_name.h"
#include "dump/object/elf_image.h"
#include "dump/object/identifiers.h"
#include "dump/object/symbol_table.h"
#include "dump/object/vdso.h"
#include "symbol_file/model/module_builder.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/BinaryFormat/ELF.h>
#include <llvm/Support/Path.h>

namespace dumpsyms {

using namespace llvm;

Expected<Module> moduleIdentity(const ElfImage& binary, const Options& options) {
  Module header;
  std::optional<std::string> cpu = cpuName(binary.machine());
  if (!cpu)
    return fileError(binary.path(), "unsupported ELF machine type " + Twine(binary.machine()) +
                                        ": Breakpad has no CPU name for it");
  header.cpu = *cpu;
  header.os = options.os.empty() ? "Linux" : options.os;
  std::vector<uint8_t> identifier = moduleIdentifier(binary);
  if (identifier.empty() && !options.debug_id_override)
    return fileError(binary.path(),
                     "cannot identify the module: no GNU build-id note and no .text section");
  header.debug_id =
      options.debug_id_override ? *options.debug_id_override : DebugId::fromIdentifier(identifier);
  header.code_id = CodeId::fromBytes(identifier);
  header.name = binary.soname();
  if (header.name.empty())
    header.name =
        sys::path::filename(options.name_override ? *options.name_override : binary.path()).str();
  header.load_address = binary.loadAddress();
  // The PT_DYNAMIC program header's file offset (p_offset), which is what
  // a crash logger reads from dl_iterate_phdr's headers and what `readelf -d`
  // prints: when the offset a log gives differs, the library was prelinked
  // on the crashing machine, and by how much (symtool symbolize). Not the
  // segment's address: with a separate code segment (ld.bfd's default on
  // x86_64, lld, gold) p_vaddr and p_offset differ.
  for (const ElfSegment& segment : binary.segments())
    if (segment.type == llvm::ELF::PT_DYNAMIC) {
      header.extra_info.push_back("PT_DYNAMIC_OFFSET " + llvm::utohexstr(segment.offset, true));
      break;
    }
  return header;
}

Expected<Module> dumpElfModule(const Options& options, Diagnostics& diagnostics,
                               const DumpProgress& progress, DumpFacts* facts) {
  DebugFileLocator locator(options.binary, searchPaths(options));
  auto files = openInputFiles(options, locator, diagnostics);
  if (!files)
    return files.takeError();
  const ElfImage& binary = *files->binary;
  const ElfImage& debug_image = files->debugImage();
  if (facts) {
    facts->debug_info_from = files->separate_debug   ? "debug-file"
                             : binary.hasDebugInfo() ? "binary"
                                                     : "none";
    if (files->separate_debug) {
      facts->debug_file = files->separate_debug->path();
      facts->debug_file_how = files->debug_file_how;
    }
  }
  auto header = moduleIdentity(binary, options);
  if (!header)
    return header.takeError();
  if (options.vdso)
    header->name = kVdsoModuleName;
  if (options.header_only)
    return std::move(*header);

  ModuleBuilder builder(std::move(*header));
  builder.setLoadedRanges(binary.loadedRanges());

  // The debug file's compressed sections inflate while the symbols are read.
  StartedDebugInfo dwarf_started;
  if (debug_image.hasDebugInfo())
    dwarf_started = startDebugInfo(debug_image, options.jobs);

  // Symbols: the debug file keeps the full .symtab a stripped binary lost;
  // MiniDebugInfo adds the functions .dynsym lacks.
  std::vector<CodeSymbol> symbols = readCodeSymbols(
      debug_image.findSection(".symtab") ? debug_image : binary, options.names, diagnostics);
  if (files->mini_debug_info)
    for (CodeSymbol& symbol : readCodeSymbols(*files->mini_debug_info, options.names, diagnostics))
      symbols.push_back(std::move(symbol));
  SymbolIndex symbol_index(symbols);

  DebugInfoOptions dwarf_options = dumpDebugInfoOptions(options, symbol_index, progress);
  dwarf_options.extract.locate_dwo = [&](llvm::DWARFUnit& unit) {
    llvm::DWARFDie die = unit.getUnitDIE(true);
    auto name = llvm::dwarf::toString(
        die.find({llvm::dwarf::DW_AT_dwo_name, llvm::dwarf::DW_AT_GNU_dwo_name}));
    const char* comp_dir = unit.getCompilationDir();
    return name ? locator.findDwo(*name, comp_dir ? comp_dir : "") : std::string();
  };
  dwarf_options.dwp_path = files->dwp_path;
  dwarf_options.supplementary_path = files->supplementary_path;
  if (debug_image.hasDebugInfo())
    readDebugInfo(debug_image, dwarf_options, builder, diagnostics, std::move(dwarf_started));

  for (CodeSymbol& symbol : symbols)
    builder.addCodeSymbol(std::move(symbol));

  // After the walk, not beside it: the unwind tables' frames, held until
  // the walk ends, would add to its peak (docs/PERFORMANCE.md).
  if (!options.no_cfi)
    addUnwindTables(builder, {&binary, &debug_image}, binary.path(), diagnostics);
  return finishDump(std::move(builder), options, diagnostics,
                    "no usable .eh_frame, .debug_frame or .ARM.exidx unwind tables");
}

} // namespace dumpsyms
