#include "store/protocols/breakpad_v1.h"

namespace dumpsyms::breakpad_v1 {

std::vector<std::pair<std::string, std::string>> plainFields(const FormFacts& facts) {
  return {{kOsField, facts.os},
          {kCpuField, facts.cpu},
          {kDebugFileField, facts.debug_file},
          {kCodeFileField, facts.code_file},
          {kDebugIdentifierField, facts.debug_identifier.str()}};
}

bool isUploadPath(const std::string& path) {
  for (const char* known : kPaths)
    if (path == known)
      return true;
  return false;
}

} // namespace dumpsyms::breakpad_v1
