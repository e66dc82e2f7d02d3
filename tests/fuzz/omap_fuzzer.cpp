// OMAP tables as a rewritten image's PDB holds them: a 16-bit count and
// that many {rva, rvaTo} pairs for OMAP_FROM_SRC, the same for OMAP_TO_SRC,
// then {start, size} pairs: each a function (with a line and an inline
// call over it, a PUBLIC at its start and a STACK WIN over it) mapped to
// the shipped image, and each range mapped alone.
#include "dump/pdb/omap.h"
#include "tests/fuzz/fuzz_targets.h"

#include <cstring>

namespace dumpsyms::fuzz {

namespace {

struct Reader {
  const uint8_t* data;
  size_t size;
  bool read(void* out, size_t n) {
    if (size < n)
      return false;
    std::memcpy(out, data, n);
    data += n;
    size -= n;
    return true;
  }
};

std::vector<OmapEntry> readTable(Reader& in) {
  uint16_t count = 0;
  std::vector<OmapEntry> table;
  if (!in.read(&count, 2))
    return table;
  for (uint16_t i = 0; i < count; ++i) {
    OmapEntry entry;
    if (!in.read(&entry.rva, 4) || !in.read(&entry.rva_to, 4))
      break;
    table.push_back(entry);
  }
  return table;
}

} // namespace

int omap(const uint8_t* data, size_t size) {
  Reader in{data, size};
  std::vector<OmapEntry> from = readTable(in);
  std::vector<OmapEntry> to = readTable(in);
  Omap map(from, to);
  Module module;
  uint32_t range[2];
  while (in.read(range, sizeof range) && module.functions.size() < 4096) {
    uint64_t start = range[0], end = uint64_t(range[0]) + (range[1] & 0xffff);
    (void)map.mapRange(start, end);
    (void)map.mapAddress(start);
    Function function;
    function.name = "f";
    function.ranges = {{start, end}};
    function.lines = {{start, end - start, 1, 0}};
    InlineCall call;
    call.ranges = {{start, end}};
    function.inlines = {call};
    module.functions.push_back(std::move(function));
    module.publics.push_back({start, "p", false, 0});
    StackWinRecord record;
    record.address = start;
    record.code_size = end - start;
    module.stack_win.push_back(record);
  }
  applyOmap(module, map);
  return 0;
}

} // namespace dumpsyms::fuzz
