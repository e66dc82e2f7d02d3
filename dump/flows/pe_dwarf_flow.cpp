#include "dump/flows/pe_dwarf_flow.h"

#include "dump/dwarf/debug_info_reader.h"
#include "dump/flows/finish_dump.h"
#include "dump/flows/pe_code_symbols.h"
#include "dump/flows/pe_unwind_rules.h"
#include "dump/flows/windows_flow.h"
#include "dump/locate/debug_file_locator.h"
#include "dump/object/symbol_table.h"
#include "dump/pe/pe_dwarf_view.h"
#include "dump/pe/pe_image.h"
#include "symbol_file/model/module_builder.h"

#include <fmt/format.h>
#include <llvm/BinaryFormat/COFF.h>

namespace dumpsyms {

using namespace llvm;

namespace {

struct PeDebugInputs {
  std::unique_ptr<ElfImage> binary_view;
  std::unique_ptr<PeImage> debug; // the separate debug file, if one was read
  std::unique_ptr<ElfImage> debug_view;
  std::string debug_how;
};

// Whether `debug` can be `pe`'s companion: objcopy keeps the machine and
// the CodeView record. (Not the file header's TimeDateStamp: binutils'
// objcopy writes the time it runs there, so --only-keep-debug and
// --strip-debug a second apart differ. Not SizeOfImage: stripping the
// debug sections shrinks the image. A companion found by .gnu_debuglink
// has passed the link's CRC.)
std::string companionMismatch(const PeImage& pe, const PeImage& debug) {
  if (pe.machine() != debug.machine())
    return fmt::format("its machine {:#x} is not {}'s {:#x}", debug.machine(), pe.path(),
                       pe.machine());
  if (pe.codeView() && debug.codeView() &&
      !(pe.codeView()->guid == debug.codeView()->guid &&
        pe.codeView()->age == debug.codeView()->age))
    return "its CodeView id is not " + pe.path() + "'s";
  return "";
}

Expected<PeDebugInputs> openInputs(const PeImage& pe, const Options& options,
                                   Diagnostics& diagnostics) {
  PeDebugInputs inputs;
  auto view = peDwarfView(pe);
  if (!view)
    return view.takeError();
  inputs.binary_view = std::move(*view);
  std::string debug_path;
  if (!options.debug_file.empty()) {
    debug_path = options.debug_file;
    inputs.debug_how = "--debug-file";
  } else if (!peHasDwarf(pe)) {
    SearchPaths paths;
    paths.debug_dirs = options.debug_dirs;
    paths.debuginfod = false; // (debuginfod serves ELF build-ids)
    DebugFileLocator locator(pe.path(), paths);
    if (auto found = locator.findDebugFile(*inputs.binary_view, {}, diagnostics)) {
      debug_path = found->path;
      inputs.debug_how = found->how;
    }
  }
  if (debug_path.empty())
    return inputs;
  auto debug = PeImage::open(debug_path);
  if (!debug)
    return debug.takeError();
  if (std::string mismatch = companionMismatch(pe, **debug); !mismatch.empty())
    return fileError(debug_path, "not the debug file of " + pe.path() + ": " + mismatch);
  auto debug_view = peDwarfView(**debug);
  if (!debug_view)
    return debug_view.takeError();
  inputs.debug = std::move(*debug);
  inputs.debug_view = std::move(*debug_view);
  diagnostics.note("read " + debug_path + " (" + inputs.debug_how + ")");
  return inputs;
}

// The code of the image: what DWARF may describe. (Functions the linker
// discarded keep address 0 or lie outside them.)
std::vector<AddressRange> codeRanges(const PeImage& pe) {
  std::vector<AddressRange> ranges;
  for (const PeSection& section : pe.sections())
    if (section.holdsCode() && section.virtual_size)
      ranges.push_back(
          {pe.imageBase() + section.rva, pe.imageBase() + section.rva + section.virtual_size});
  return ranges;
}

// Functions and inline origins DWARF names by an x86 assembler name (a
// stdcall or fastcall function's linkage name: `f@8` from GCC, `_f@8` from
// Clang) get their source name, and the FUNC the bytes of arguments the
// callee pops, as the PDB flow and Breakpad's Windows dumper write them.
void undecorateX86Names(Module& module, const std::unordered_map<std::string, X86CName>& names) {
  for (Function& function : module.functions)
    if (auto found = names.find(function.name); found != names.end()) {
      function.name = found->second.name;
      if (!function.parameter_size)
        function.parameter_size = found->second.parameter_size;
    }
  for (std::string& origin : module.inline_origins)
    if (auto found = names.find(origin); found != names.end())
      origin = found->second.name;
}

} // namespace

bool peHasGnuDebugInfo(const PeImage& pe) {
  return peHasDwarf(pe) || pe.findSection(".gnu_debuglink") || pe.coff().getNumberOfSymbols() > 0;
}

Expected<Module> dumpPeDwarfModule(const PeImage& pe, const Options& options,
                                   Diagnostics& diagnostics, const DumpProgress& progress,
                                   DumpFacts* facts) {
  auto identity = peDumpHeader(pe, options);
  if (!identity)
    return identity.takeError();
  Module header = std::move(*identity);
  // DWARF's addresses are virtual: the writer makes them RVAs.
  header.load_address = pe.imageBase();
  if (options.header_only)
    return header;
  auto inputs = openInputs(pe, options, diagnostics);
  if (!inputs)
    return inputs.takeError();
  const ElfImage* dwarf = inputs->debug_view && inputs->debug_view->hasDebugInfo()
                              ? inputs->debug_view.get()
                          : peHasDwarf(pe) ? inputs->binary_view.get()
                                           : nullptr;
  if (facts) {
    facts->debug_info_from = !dwarf                              ? "none"
                             : dwarf == inputs->debug_view.get() ? "debug-file"
                                                                 : "binary";
    if (inputs->debug) {
      facts->debug_file = inputs->debug->path();
      facts->debug_file_how = inputs->debug_how;
    }
  }
  if (!dwarf)
    diagnostics.warn(pe.path() + ": no DWARF in the PE and no debug file found (a "
                                 ".gnu_debuglink companion, or give it with --debug-file): only "
                                 "PUBLIC and STACK CFI records");

  ModuleBuilder builder(std::move(header));
  builder.setLoadedRanges(codeRanges(pe));
  // The binary's symbol table, else its companion's copy of it.
  std::vector<CodeSymbol> symbols = peCoffSymbols(pe, options.names, diagnostics);
  if (symbols.empty() && inputs->debug)
    symbols = peCoffSymbols(*inputs->debug, options.names, diagnostics);
  for (CodeSymbol& symbol : peExportSymbols(pe, pe.imageBase(), options.names, diagnostics))
    symbols.push_back(std::move(symbol));
  SymbolIndex symbol_index(symbols);
  if (dwarf)
    readDebugInfo(*dwarf, dumpDebugInfoOptions(options, symbol_index, progress), builder,
                  diagnostics);
  for (CodeSymbol& symbol : symbols)
    builder.addCodeSymbol(std::move(symbol));

  if (!options.no_cfi) {
    std::vector<const ElfImage*> images{inputs->binary_view.get()};
    if (inputs->debug_view)
      images.push_back(inputs->debug_view.get());
    addUnwindTables(builder, images, pe.path(), diagnostics);
    addPeUnwindRules(pe, builder, diagnostics, pe.imageBase());
  }
  auto module = finishDump(std::move(builder), options, diagnostics,
                           "no .eh_frame, .debug_frame or exception directory",
                           options.no_cfi ? std::vector<CfiRule>{} : peLeafFunctionRules(pe));
  if (module && pe.machine() == COFF::IMAGE_FILE_MACHINE_I386) {
    auto names = x86DecoratedNames(pe);
    if (names.empty() && inputs->debug)
      names = x86DecoratedNames(*inputs->debug);
    undecorateX86Names(*module, names);
  }
  return module;
}

} // namespace dumpsyms
