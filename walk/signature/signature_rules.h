// The three lists a crash signature is made with, each a file of regular
// expressions (ECMAScript syntax, one a line, '#' starts a comment line),
// each matching a whole normalized frame name:
//   sentinel.txt    the signature starts at the first frame matching one
//   irrelevant.txt  frames skipped (the abort, raise and assert paths)
//   prefix.txt      frames taken, and the next frame taken too (allocators)
// Ours are built in (walk/signature/rules/); `--signature-rules DIR`
// replaces them, a missing file being an empty list, and is read again
// when its files change.
#pragma once

#include "common/limits/input_limits.h"

#include <chrono>
#include <functional>
#include <llvm/Support/Error.h>
#include <memory>
#include <mutex>
#include <regex>
#include <string>
#include <vector>

namespace dumpsyms {

class RuleList {
public:
  // `text`: the file's contents; `name`: the file, for errors ("FILE:LINE: ...").
  static llvm::Expected<RuleList> parse(const std::string& text, const std::string& name);

  bool matches(const std::string& frame_name) const;
  size_t size() const { return patterns_.size(); }

private:
  std::vector<std::regex> patterns_;
};

struct SignatureRules {
  RuleList sentinel, irrelevant, prefix;

  // Ours.
  static const SignatureRules& builtIn();
  // From DIR/sentinel.txt, irrelevant.txt and prefix.txt.
  static llvm::Expected<SignatureRules> load(const std::string& directory);
};

// The rules in force: the built-in ones, or a directory's, read again when
// one of its files changed (looked at no more than once every two seconds).
// A directory whose files no longer parse keeps the rules read last, and
// the error is reported once per change.
class SignatureRuleSource {
public:
  SignatureRuleSource(); // the built-in rules
  // The directory's rules; an error when they cannot be read at first.
  static llvm::Expected<std::unique_ptr<SignatureRuleSource>> open(const std::string& directory);

  std::shared_ptr<const SignatureRules> current();
  // "built in" or the directory.
  const std::string& describe() const { return directory_; }
  // Told of each change read, and of each change refused and why.
  void onChange(std::function<void(const std::string&)> report) { report_ = std::move(report); }

private:
  std::string stampOfFiles() const;

  std::string directory_;
  std::mutex mutex_;
  std::shared_ptr<const SignatureRules> rules_;
  std::string stamp_;
  std::chrono::steady_clock::time_point checked_;
  std::function<void(const std::string&)> report_;
};

} // namespace dumpsyms
