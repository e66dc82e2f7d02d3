#include "dump/flows/elf_inputs.h"

#include "dump/object/identifiers.h"
#include "dump/object/mini_debug_info.h"
#include "dump/object/vdso.h"

#include <llvm/BinaryFormat/ELF.h>
#include <llvm/Support/FileSystem.h>

namespace dumpsyms {

SearchPaths searchPaths(const Options& options) {
  SearchPaths paths;
  paths.debug_dirs = options.debug_dirs;
  paths.debuginfod = !options.no_debuginfod;
  return paths;
}

llvm::Expected<InputFiles> openInputFiles(const Options& options, const DebugFileLocator& locator,
                                          Diagnostics& diagnostics) {
  InputFiles files;
  auto binary = options.vdso ? readRunningVdso() : ElfImage::open(options.binary);
  if (!binary)
    return binary.takeError();
  // A core dump is memory and registers, not a module with symbols.
  if ((*binary)->fileType() == llvm::ELF::ET_CORE)
    return fileError(options.binary, "is a core file, not a module: walk its stacks with "
                                     "`symtool stackwalk --store STORE " +
                                         options.binary + "`");
  files.binary = std::move(*binary);
  diagnostics.warnAll(files.binary->openWarnings());
  if (options.header_only || options.vdso)
    return files;

  // The image with the DWARF.
  if (!options.debug_file.empty()) {
    auto debug = ElfImage::open(options.debug_file);
    if (!debug)
      return debug.takeError();
    files.separate_debug = std::move(*debug);
    files.debug_file_how = "--debug-file";
    diagnostics.note("reading DWARF from " + options.debug_file + " (--debug-file)");
  } else if (files.binary->hasDebugInfo()) {
    diagnostics.note("reading DWARF from the binary itself");
  } else if (std::optional<LocatedFile> found =
                 locator.findDebugFile(*files.binary, gnuBuildId(*files.binary), diagnostics)) {
    auto debug = ElfImage::open(found->path);
    if (!debug) {
      diagnostics.warn(llvm::toString(debug.takeError()));
    } else {
      files.separate_debug = std::move(*debug);
      files.debug_file_how = found->how;
      diagnostics.note("reading DWARF from " + found->path + " (" + found->how + ")");
    }
  }
  if (files.separate_debug)
    diagnostics.warnAll(files.separate_debug->openWarnings());

  std::vector<std::string> warnings;
  files.mini_debug_info = readMiniDebugInfo(*files.binary, warnings);
  diagnostics.warnAll(std::move(warnings));
  if (files.mini_debug_info)
    diagnostics.note("adding the symbol table of .gnu_debugdata (MiniDebugInfo)");

  if (!files.debugImage().hasDebugInfo())
    diagnostics.warn(options.binary +
                     ": no debug info found (no DWARF, no separate debug file): only PUBLIC and "
                     "STACK CFI records");

  if (std::optional<LocatedFile> alt =
          locator.findAltFile(files.debugImage(), files.debugImage().path(), diagnostics)) {
    files.supplementary_path = alt->path;
    diagnostics.note("reading shared DWARF from " + alt->path + " (" + alt->how + ")");
  }

  if (!options.dwp.empty())
    files.dwp_path = options.dwp;
  else if (llvm::sys::fs::is_regular_file(options.binary + ".dwp"))
    files.dwp_path = options.binary + ".dwp";
  if (!files.dwp_path.empty())
    diagnostics.note("reading split DWARF from the package " + files.dwp_path);
  return files;
}

} // namespace dumpsyms
