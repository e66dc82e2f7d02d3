// A crash's signature, as Socorro's signature generator makes it: the
// crashing thread's frames (inlined calls are frames), normalized
// (frame_name.h), taken by the rules (signature_rules.h) and joined with
// " | ". Crashes with one signature are one group.
#pragma once

#include "walk/signature/frame_name.h"
#include "walk/signature/signature_rules.h"

#include <map>
#include <string>
#include <vector>

namespace dumpsyms {

constexpr size_t kMaxSignatureFrames = 40;  // frames looked at, innermost first
constexpr size_t kMaxSignatureLength = 255; // bytes, cut at a character's start

struct SignatureInput {
  std::vector<SignatureFrame> frames; // the crashing thread's, innermost first
  // The client's annotations: OOMAllocationSize and AbortMessage give
  // Socorro's special forms ("OOM | small", "Abort | message | ...").
  std::map<std::string, std::string> annotations;
};

std::string crashSignature(const SignatureInput& input, const SignatureRules& rules);

} // namespace dumpsyms
