// The fuzz targets: one function per input surface, each taking one input
// as libFuzzer gives it. A libFuzzer build wraps one of them as
// LLVMFuzzerTestOneInput (libfuzzer_entry.cpp); the normal build links them
// all into `fuzz_replay`, which ctest runs over every kept regression input
// and seed, so that a crash once found stays fixed without clang or libFuzzer.
#pragma once

#include "dump/flows/options.h"
#include "walk/snapshot/process_snapshot.h"

#include <cstddef>
#include <cstdint>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <memory>
#include <string>

namespace dumpsyms {
class PdbFile;
class PeImage;
} // namespace dumpsyms

namespace dumpsyms::fuzz {

using Target = int (*)(const uint8_t* data, size_t size);

int postfix(const uint8_t* data, size_t size);        // DWARF expressions and postfix programs
int symParser(const uint8_t* data, size_t size);      // the .sym parser, lookups, re-writing
int crashText(const uint8_t* data, size_t size);      // backtrace lines and JSON crash reports
int coreFile(const uint8_t* data, size_t size);       // ELF core files and the stack walk
int dumpElf(const uint8_t* data, size_t size);        // a whole dump of an ELF file
int dwarfSections(const uint8_t* data, size_t size);  // fuzzed DWARF inside a valid ELF
int pdb(const uint8_t* data, size_t size);            // a whole dump of a PDB
int pe(const uint8_t* data, size_t size);             // PE/COFF files (and a PDB paired with one)
int httpAnswers(const uint8_t* data, size_t size);    // what symbol servers answer
int minidump(const uint8_t* data, size_t size);       // minidumps and the stack walk
int microdump(const uint8_t* data, size_t size);      // microdumps in a log and the stack walk
int windowsSymbols(const uint8_t* data, size_t size); // cabinets, file.ptr, _NT_SYMBOL_PATH
int omap(const uint8_t* data, size_t size);           // OMAP tables and a module mapped by them
int symbolIndex(const uint8_t* data, size_t size);    // a symbol file's binary index and lookups
int macho(const uint8_t* data, size_t size);        // Mach-O files, universal ones, compact unwind
int uploadZip(const uint8_t* data, size_t size);    // a Tecken upload's zip, with its caps
int uploadChecks(const uint8_t* data, size_t size); // an upload's path and .sym checks
int downloadRequests(const uint8_t* data, size_t size); // a download's path, headers, store answer
int crashSubmission(const uint8_t* data, size_t size);  // crash reports as the inbox receives them
int storePages(const uint8_t* data,
               size_t size); // a search or address, then a .sym, as pages print them

// A new directory under the system's temporary directory, named after
// `prefix`, removed with everything in it when the process exits (a fuzz
// run ends by exit(); one that crashed leaves it, beside its reproducer).
// Empty if it cannot be made.
std::string scratchDirectory(const char* prefix);

// By name ("postfix", "sym_parser", ...); nullptr when there is none.
Target targetNamed(const std::string& name);

// The whole dump of a PDB (with its PE when there is one), written to
// memory, its names in `names` style: what the pdb and pe targets end with.
void dumpPdbAndWrite(PdbFile& pdb, const PeImage* pe, const std::string& binary, NameStyle names);

// Every thread of a snapshot walked (Breakpad's rules and ours) against a
// store with no symbols, and printed in every form: what the core_file and
// minidump targets end with (nothing for input the reader refused).
void walkAndPrint(llvm::Expected<ProcessSnapshot> snapshot);

// The input written to a scratch file and dumped whole (-d), as the given
// slice of a universal Mach-O file ("": the file's only one), then written.
int dumpBytes(const uint8_t* data, size_t size, const std::string& arch);

// The input as a file's bytes, named `name`.
std::unique_ptr<llvm::MemoryBuffer> inputBuffer(const uint8_t* data, size_t size, const char* name);

} // namespace dumpsyms::fuzz
