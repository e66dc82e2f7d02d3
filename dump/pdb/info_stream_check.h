// Checks the PDB info stream's named stream map before LLVM reads it.
//
// LLVM 19's NamedStreamMap trusts its hash table: the capacity sizes an
// allocation (up to 2^32 buckets), a "present" bit past the capacity is a
// write past the buckets, and a name's offset is never checked against the
// names buffer, so that looking up "/names" (every string table lookup)
// reads wherever the offset points. Here every one of those is checked
// against the stream first.
#pragma once

#include <string>

namespace llvm::pdb {
class PDBFile;
}

namespace dumpsyms {

// Empty when the info stream's header and named stream map are sound;
// otherwise what is wrong. The file's stream directory must be parsed.
std::string infoStreamProblem(llvm::pdb::PDBFile& file);

} // namespace dumpsyms
