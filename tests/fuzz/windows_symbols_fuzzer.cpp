// What Windows symbol servers and users hand the fetcher: a cabinet (the
// compressed `.pd_`/`.dl_` a server sends; inputs starting "MSCF", written
// to a file and expanded by libmspack with a small size limit), a
// `file.ptr` answer, and an `_NT_SYMBOL_PATH` / --symbol-server spec.
#include "store/symbol_servers/cab_archive.h"
#include "store/symbol_servers/windows_symbol_path.h"
#include "tests/fuzz/fuzz_targets.h"

#include <cstdio>
#include <llvm/Support/FileSystem.h>
#include <string>
#include <unistd.h>

namespace dumpsyms::fuzz {

int windowsSymbols(const uint8_t* data, size_t size) {
  std::string input(reinterpret_cast<const char*>(data), size);
  if (input.rfind("MSCF", 0) == 0) {
    // (files of this process: parallel fuzzers do not share them)
    std::string base = "/tmp/windows_symbols_fuzz." + std::to_string(getpid());
    std::string cab = base + ".cab", out = base + ".out";
    if (std::FILE* file = std::fopen(cab.c_str(), "wb")) {
      std::fwrite(data, 1, size, file);
      std::fclose(file);
      llvm::consumeError(expandCabFile(cab, "app.pdb", out, 16 << 20));
      std::remove(cab.c_str());
      std::remove(out.c_str());
    }
    return 0;
  }
  (void)parseFilePointer(input);
  for (const WindowsSymbolSource& source : parseWindowsSymbolPath(input, "/cache"))
    (void)source;
  (void)parseSymbolServerSpec(input, "/cache");
  (void)pdbServerKey(DebugId(input));
  return 0;
}

} // namespace dumpsyms::fuzz
