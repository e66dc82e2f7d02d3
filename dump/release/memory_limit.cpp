#include "dump/release/memory_limit.h"

#include <cctype>
#include <cmath>
#include <unistd.h>

namespace dumpsyms {

namespace {

uint64_t physicalMemory() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0)
    return uint64_t(4) << 30; // unknown: a small machine's
  return uint64_t(pages) * uint64_t(page);
}

// A dump's own memory beside its DWARF: the process, LLVM, the symbol
// table and the model of a small module.
constexpr uint64_t kDumpBase = uint64_t(64) << 20;

} // namespace

std::optional<uint64_t> parseMemoryLimit(const std::string& text) {
  if (text == "largest")
    return 0;
  size_t end = 0;
  double number = 0;
  try {
    number = std::stod(text, &end);
  } catch (...) {
    return std::nullopt;
  }
  if (!std::isfinite(number) || number <= 0 || !std::isdigit(static_cast<unsigned char>(text[0])))
    return std::nullopt;
  std::string unit = text.substr(end);
  double bytes = 0;
  if (unit == "%") {
    if (number > 100)
      return std::nullopt;
    bytes = double(physicalMemory()) * number / 100;
  } else {
    for (char& c : unit)
      c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (unit.size() > 1 && (unit.substr(1) == "IB" || unit.substr(1) == "B"))
      unit.resize(1);
    double scale = 0;
    if (unit.empty() || unit == "B")
      scale = 1;
    else if (unit == "K")
      scale = 1024.0;
    else if (unit == "M")
      scale = 1024.0 * 1024;
    else if (unit == "G")
      scale = 1024.0 * 1024 * 1024;
    else if (unit == "T")
      scale = 1024.0 * 1024 * 1024 * 1024;
    else
      return std::nullopt;
    bytes = number * scale;
  }
  if (bytes < 1 || bytes > 1e19)
    return std::nullopt;
  return static_cast<uint64_t>(bytes);
}

uint64_t defaultMemoryLimit() {
  return physicalMemory() / 2;
}

uint64_t estimatedDumpMemory(uint64_t cost) {
  return cost + kDumpBase;
}

} // namespace dumpsyms
