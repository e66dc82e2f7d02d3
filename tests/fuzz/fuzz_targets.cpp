#include "tests/fuzz/fuzz_targets.h"

#include <map>

namespace dumpsyms::fuzz {

Target targetNamed(const std::string& name) {
  static const std::map<std::string, Target> targets = {
      {"postfix", postfix},
      {"sym_parser", symParser},
      {"crash_text", crashText},
      {"core_file", coreFile},
      {"dump_elf", dumpElf},
      {"dwarf_sections", dwarfSections},
      {"pdb", pdb},
      {"pe", pe},
      {"http_answers", httpAnswers},
  };
  auto found = targets.find(name);
  return found == targets.end() ? nullptr : found->second;
}

} // namespace dumpsyms::fuzz
