// Which build a file kept beside a .sym belongs to, read from the file
// itself: what `symstore serve` checks a kept binary or debug file against
// before it publishes it under <module>/<ID>/<name> (store/layout/layout.h).
#pragma once

#include <llvm/Support/Error.h>
#include <string>
#include <vector>

namespace dumpsyms {

struct KeptFileIdentity {
  std::string kind;             // "ELF", "PE", "PDB", "Mach-O"
  std::vector<std::string> ids; // the directory names it may be filed under, upper case
  // An ELF file without a GNU build id (its module id hashes .text, which
  // its debug file lacks), a Mach-O file without a UUID: nothing to check.
  bool unchecked = false;
};

// An ELF file's module id from its GNU build id (a binary and its debug
// file alike; a dwz file's is its own); a PE's code id
// (TimeDateStamp and SizeOfImage, its SSQP directory) and the debug id of
// the PDB its CodeView record names; a PDB's GUID and age; each slice of a
// Mach-O file's UUID. An error says the file is none of these, or why it
// cannot be read; it names `label`, not `path`.
llvm::Expected<KeptFileIdentity> keptFileIdentity(const std::string& path,
                                                  const std::string& label);

} // namespace dumpsyms
