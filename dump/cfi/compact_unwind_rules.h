// A compact unwind encoding (x86_64 or arm64) as a STACK CFI frame.
//
// An encoding describes a function's frame once its prologue is done: where
// the CFA is (a frame pointer + 16, or the stack pointer + a size), where
// the return address and the callee-saved registers were stored. The
// frame's rules are those from the function's start when the prologue can
// be followed instruction by instruction (x86_64 pushes, `mov %rsp,%rbp`,
// `sub $n,%rsp`; arm64 `stp` of register pairs, `sub sp`, `add x29, sp`)
// and ends in exactly the state the encoding gives: a row for the entry
// (nothing pushed yet), one after each prologue instruction, the last one
// the encoding's. Otherwise the encoding's rules hold from the start, as
// Mozilla's dump_syms writes them.
#pragma once

#include "dump/cfi/compact_unwind_reader.h"
#include "symbol_file/model/module.h"

#include <cstdint>
#include <llvm/ADT/StringRef.h>
#include <optional>
#include <string>

namespace dumpsyms {

// `code`: the function's bytes from its start (as many as the image has,
// up to the entry's end). nullopt for an entry with no frame to describe:
// no unwind information (0), DWARF mode (its FDE in __eh_frame is read
// with the rest), a mode or cpu this does not know; `problem` then says
// why when it is worth a note ("" otherwise).
std::optional<CfiFrame> compactUnwindFrame(const CompactUnwindEntry& entry, uint32_t cpu_type,
                                           llvm::StringRef code, std::string& problem);

} // namespace dumpsyms
