// The .sym parser: any text becomes a Module and a list of problems; the
// Module is then indexed, looked up at a few addresses and written back out.
#include "symbol_file/lookup/address_lookup.h"
#include "symbol_file/text/text_reader.h"
#include "symbol_file/text/text_writer.h"
#include "tests/fuzz/fuzz_targets.h"

#include <sstream>

namespace dumpsyms::fuzz {

int symParser(const uint8_t* data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char*>(data), size);
  ParsedSymbolFile parsed = readSymbolFile(text);
  std::ostringstream out;
  writeSymbolFile(parsed.module, WriteOptions{}, out);
  AddressLookup lookup = AddressLookup::fromText(text);
  for (uint64_t address : {uint64_t(0), uint64_t(0x1000), uint64_t(0x1234), UINT64_MAX}) {
    (void)lookup.lookup(address);
    (void)lookup.cfiAt(address);
    (void)lookup.stackWinAt(address, 4);
  }
  for (const Function& function : parsed.module.functions) {
    (void)lookup.addressOf(function.name);
    for (const AddressRange& range : function.ranges) {
      (void)lookup.lookup(range.start);
      (void)lookup.lookup(range.end - 1);
    }
  }
  return 0;
}

} // namespace dumpsyms::fuzz
