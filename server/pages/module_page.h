// The module page (/ui/module/<debug_file>/<DEBUG_ID>) and its sections,
// which the check page reuses for an uploaded file: the MODULE and INFO
// lines, the record counts, the coverage picture (the module's range drawn
// as a bar coloured by what covers each byte, STACK CFI beside it, the
// largest functions without CFI or lines), the address lookup form and its
// answer, the store file's upload time, versions and downloads.
#pragma once

#include "store/catalog/store_catalog.h"
#include "symbol_file/analysis/symbol_coverage.h"
#include "symbol_file/analysis/symbol_stats.h"
#include "symbol_file/lookup/address_lookup.h"
#include "symbol_file/text/symbol_header.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dumpsyms {

// What the sections print of one symbol file: the values a parse gives,
// small enough to keep for a file once it is computed.
// A module's page: its header (the MODULE and INFO lines), what it holds.
struct ModuleSummary : SymbolFileHeader {
  SymbolStats stats;
  SymbolCoverage coverage;
  size_t parse_problems = 0; // lines the parser could not read
};

// An address looked up: the answer, or why there is none.
struct LookupAnswer {
  std::string asked; // as typed
  std::optional<uint64_t> address;
  AddressInfo info;
  std::string error; // "" when address is set
};

std::string renderModuleHeading(const ModuleSummary& summary);
std::string renderRecordCounts(const SymbolStats& stats);
std::string renderCoverage(const ModuleSummary& summary);
// A GET form to `action` with the address field (and `hidden` fields none).
std::string renderLookupForm(std::string_view action, std::string_view value);
std::string renderLookupAnswer(const LookupAnswer& answer);

struct ModulePageInput {
  const ModuleSummary* summary = nullptr;
  const CatalogEntry* entry = nullptr;       // the stored file
  std::vector<const CatalogEntry*> versions; // every version of the name, newest first
  std::optional<LookupAnswer> lookup;
};

// The body of the module page.
std::string renderModulePage(const ModulePageInput& input);

} // namespace dumpsyms
