// The MODULE record's cpu field for an ELF e_machine (spec section 4.2).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace dumpsyms {

// std::nullopt for a machine Breakpad has no name for.
std::optional<std::string> cpuName(uint16_t machine);

} // namespace dumpsyms
