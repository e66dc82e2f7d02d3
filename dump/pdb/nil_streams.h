// A PDB's bytes as LLVM reads them, with every nil stream made empty.
//
// The MSF stream directory gives a stream that no longer exists the size
// 0xFFFFFFFF (MSVC leaves deleted streams so). LLVM 19 gives such a stream
// no blocks but keeps that size as its length, so reading it indexes an
// empty block list (a null pointer; docs/FUZZING.md); and a PDB names its
// streams by index from everywhere (the DBI stream, named streams, module
// descriptors). Seen through this stream, the directory says 0 for them:
// what a nil stream holds.
#pragma once

#include "dump/pdb/msf_directory.h"

#include <llvm/Support/BinaryStream.h>
#include <llvm/Support/MemoryBuffer.h>
#include <memory>

namespace dumpsyms {

// `directory` is the file's, as readMsfDirectory gives it.
std::unique_ptr<llvm::BinaryStream> withNilStreamsEmpty(std::unique_ptr<llvm::MemoryBuffer> bytes,
                                                        const MsfDirectory& directory);

} // namespace dumpsyms
