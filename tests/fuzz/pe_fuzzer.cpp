// PE/COFF bytes from memory: the header check, LLVM's COFF reader, the
// CodeView record (the identity symstore files a PE under, and the places
// its PDB is looked for) and the x64 and ARM64 exception directories (.pdata/.xdata)
// as STACK CFI, and the whole PE-only dump (exports as PUBLIC, the unwind
// data as STACK CFI) dump_syms makes of a PE without its PDB, written.
// A PE alone is also dumped as dump_syms dumps a file: without a PDB to
// find, through the PE/DWARF flow (the section view, the COFF symbols, the
// DWARF and CFI readers over it), or the PE-only flow.
// A PDB appended to the PE (from the MSF signature on) is
// paired with it: the ownership check, then the whole dump of the two, as
// dump_syms makes it of a PE whose PDB it found.
#include "dump/flows/dump_module.h"
#include "dump/flows/pe_only_flow.h"
#include "dump/flows/windows_flow.h"
#include "dump/locate/pdb_locator.h"
#include "dump/pdb/pdb_file.h"
#include "dump/pe/pe_image.h"
#include "tests/fuzz/fuzz_targets.h"
#include "tests/support/whole_dump_options.h"

#include <llvm/DebugInfo/MSF/MSFCommon.h>
#include <sstream>

namespace dumpsyms::fuzz {

namespace {

void dumpPair(const PeImage& image, llvm::StringRef pdb_bytes) {
  auto file =
      PdbFile::open(llvm::MemoryBuffer::getMemBufferCopy(pdb_bytes, "fuzz.pdb"), "fuzz.pdb");
  if (!file) {
    llvm::consumeError(file.takeError());
    return;
  }
  // dump_syms refuses a PDB the PE does not name; the dump runs either way
  // here, so that the fuzzer need not match a GUID to reach it.
  if (image.codeView())
    (void)pdbBelongsTo(**file, *image.codeView());
  dumpPdbAndWrite(**file, &image, "fuzz.exe",
                  pdb_bytes.size() % 2 ? NameStyle::Breakpad : NameStyle::Llvm);
}

} // namespace

int pe(const uint8_t* data, size_t size) {
  llvm::StringRef input(reinterpret_cast<const char*>(data), size);
  size_t msf = input.find(llvm::StringRef(llvm::msf::Magic, sizeof(llvm::msf::Magic)));
  llvm::StringRef pe_bytes = input.take_front(msf);
  auto image =
      PeImage::open(llvm::MemoryBuffer::getMemBufferCopy(pe_bytes, "fuzz.exe"), "fuzz.exe");
  if (!image) {
    llvm::consumeError(image.takeError());
    return 0;
  }
  const PeImage& pe_image = **image;
  if (auto identity = peIdentity(pe_image); !identity)
    llvm::consumeError(identity.takeError());
  if (pe_image.codeView())
    (void)pdbCandidates("dir/fuzz.exe", pe_image.codeView()->pdb_path, "", {"debug"});
  {
    Options options = test_support::wholeDumpOptions("fuzz.exe");
    options.names = size % 2 ? NameStyle::Breakpad : NameStyle::Llvm;
    Diagnostics diagnostics;
    if (auto module = dumpPeOnlyModule(pe_image, options, diagnostics)) {
      std::ostringstream text;
      writeSymbolFile(*module, writeOptions(options), text);
    } else {
      llvm::consumeError(module.takeError());
    }
  }
  if (msf != llvm::StringRef::npos)
    dumpPair(pe_image, input.drop_front(msf));
  else
    dumpBytes(data, size, ""); // a PE alone: its DWARF and COFF symbols, or its exports
  return 0;
}

} // namespace dumpsyms::fuzz
