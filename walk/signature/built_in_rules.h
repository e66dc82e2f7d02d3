// Our signature rules (walk/signature/rules/*.txt), built into the tools.
#pragma once

namespace dumpsyms {

extern const char* const kBuiltInSentinelRules;
extern const char* const kBuiltInIrrelevantRules;
extern const char* const kBuiltInPrefixRules;

} // namespace dumpsyms
