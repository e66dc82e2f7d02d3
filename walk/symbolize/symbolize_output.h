// How symtool prints lookups and symbolized crash text: text for people,
// JSON for programs.
#pragma once

#include "symbol_file/lookup/address_lookup.h"
#include "walk/symbolize/frame_resolver.h"

#include <llvm/Support/JSON.h>
#include <optional>
#include <string>

namespace dumpsyms {

std::string hex(uint64_t value);
llvm::json::Array framesJson(const AddressInfo& info);
// {"input"} plus, for a frame, its module, offset and frames.
llvm::json::Object frameJson(llvm::StringRef line, const std::optional<ResolvedFrame>& frame);
void printJson(llvm::json::Object object);

void printLookup(const std::string& module, uint64_t address, const AddressInfo& info, bool json);
// One line of crash text written back: as it was, then what its frame is.
void printSymbolized(llvm::StringRef line, const std::optional<ResolvedFrame>& frame, bool json);
// symbolize -v, on stderr: a module's logged and recorded PT_DYNAMIC
// offsets and the shift applied to its offsets.
void printPrelinkCorrection(const PrelinkCorrection& correction);

} // namespace dumpsyms
