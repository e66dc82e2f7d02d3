#include "walk/signature/crash_signature.h"

#include <cstdlib>

namespace dumpsyms {
namespace {

// Mozilla's clients' bound between a small and a large failed allocation.
constexpr uint64_t kSmallAllocation = 256 * 1024;
constexpr size_t kMaxAbortMessage = 80;

std::string frameSignature(const std::vector<SignatureFrame>& frames, const SignatureRules& rules) {
  std::vector<std::string> names;
  for (size_t i = 0; i < frames.size() && i < kMaxSignatureFrames; ++i)
    names.push_back(signatureFrameName(frames[i]));
  size_t start = 0;
  std::string signature;
  auto take = [&signature](const std::string& name) {
    if (!signature.empty())
      signature += " | ";
    signature += name;
  };
  bool sentinel_found = false;
  for (size_t i = 0; i < names.size() && !sentinel_found; ++i)
    if (rules.sentinel.matches(names[i])) {
      start = i;
      sentinel_found = true;
    }
  for (size_t i = start; i < names.size(); ++i) {
    // The sentinel the signature starts at is taken, and the frames after
    // it say where it was reached from.
    if (sentinel_found && i == start) {
      take(names[i]);
      continue;
    }
    if (rules.irrelevant.matches(names[i]))
      continue;
    take(names[i]);
    if (!rules.prefix.matches(names[i]))
      break;
  }
  return signature;
}

std::string annotation(const SignatureInput& input, const char* name) {
  auto found = input.annotations.find(name);
  return found == input.annotations.end() ? std::string() : found->second;
}

// At most `limit` bytes, never ending inside a UTF-8 sequence.
std::string cutAt(std::string text, size_t limit) {
  if (text.size() <= limit)
    return text;
  size_t end = limit;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xc0) == 0x80)
    --end;
  text.resize(end);
  return text;
}

std::string oneLine(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r' || c == '\t')
      c = ' ';
  size_t end = text.find_last_not_of(' ');
  text.resize(end == std::string::npos ? 0 : end + 1);
  return text;
}

} // namespace

std::string crashSignature(const SignatureInput& input, const SignatureRules& rules) {
  std::string frames = frameSignature(input.frames, rules);
  std::string signature;
  if (std::string size = annotation(input, "OOMAllocationSize"); !size.empty()) {
    char* end = nullptr;
    unsigned long long bytes = std::strtoull(size.c_str(), &end, 10);
    bool known = end && *end == 0;
    if (known && bytes <= kSmallAllocation)
      signature = "OOM | small";
    else
      signature = std::string("OOM | ") + (known ? "large" : "unknown") +
                  (frames.empty() ? "" : " | " + frames);
  } else if (std::string message = oneLine(annotation(input, "AbortMessage")); !message.empty()) {
    signature =
        "Abort | " + cutAt(message, kMaxAbortMessage) + (frames.empty() ? "" : " | " + frames);
  } else if (frames.empty()) {
    signature = "EMPTY: no frame data available";
  } else {
    signature = frames;
  }
  return cutAt(signature, kMaxSignatureLength);
}

} // namespace dumpsyms
