#include "walk/signature/signature_rules.h"

#include "walk/signature/built_in_rules.h"

#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <sys/stat.h>
#include <utility>

namespace dumpsyms {
namespace {

constexpr const char* kFiles[] = {"sentinel.txt", "irrelevant.txt", "prefix.txt"};
constexpr std::chrono::seconds kRecheck{2};

// A missing file is an empty list.
llvm::Expected<RuleList> readList(const std::string& path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer) {
    if (buffer.getError() == std::errc::no_such_file_or_directory)
      return RuleList::parse("", path);
    return llvm::createStringError(path + ": " + buffer.getError().message());
  }
  if ((*buffer)->getBufferSize() > limits::kMaxSignatureRuleFile)
    return llvm::createStringError(path + ": larger than " +
                                   std::to_string(limits::kMaxSignatureRuleFile) + " bytes");
  return RuleList::parse((*buffer)->getBuffer().str(), path);
}

} // namespace

llvm::Expected<RuleList> RuleList::parse(const std::string& text, const std::string& name) {
  RuleList list;
  size_t number = 0;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos)
      end = text.size();
    std::string line = text.substr(at, end - at);
    at = end + 1;
    ++number;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
      line.pop_back();
    size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#')
      continue;
    try {
      list.patterns_.emplace_back(line.substr(first),
                                  std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error& error) {
      return llvm::createStringError(name + ":" + std::to_string(number) +
                                     ": not a regular expression: " + error.what());
    }
  }
  return list;
}

bool RuleList::matches(const std::string& frame_name) const {
  std::string subject = frame_name.size() > limits::kMaxMatchedFrameName
                            ? frame_name.substr(0, limits::kMaxMatchedFrameName)
                            : frame_name;
  for (const std::regex& pattern : patterns_) {
    try {
      if (std::regex_match(subject, pattern))
        return true;
    } catch (const std::regex_error&) {
      // Too complex for this name (error_complexity, error_stack): no match.
    }
  }
  return false;
}

const SignatureRules& SignatureRules::builtIn() {
  static const SignatureRules rules = [] {
    SignatureRules made;
    const char* texts[] = {kBuiltInSentinelRules, kBuiltInIrrelevantRules, kBuiltInPrefixRules};
    RuleList* lists[] = {&made.sentinel, &made.irrelevant, &made.prefix};
    for (int i = 0; i < 3; ++i) {
      auto parsed = RuleList::parse(texts[i], std::string("built-in ") + kFiles[i]);
      if (!parsed) // our own files: tests/unit/crash_signature_test parses them
        llvm::report_fatal_error(parsed.takeError());
      *lists[i] = std::move(*parsed);
    }
    return made;
  }();
  return rules;
}

llvm::Expected<SignatureRules> SignatureRules::load(const std::string& directory) {
  if (!llvm::sys::fs::is_directory(directory))
    return llvm::createStringError("--signature-rules " + directory + ": not a directory");
  SignatureRules rules;
  RuleList* lists[] = {&rules.sentinel, &rules.irrelevant, &rules.prefix};
  for (int i = 0; i < 3; ++i) {
    auto parsed = readList(directory + "/" + kFiles[i]);
    if (!parsed)
      return parsed.takeError();
    *lists[i] = std::move(*parsed);
  }
  return rules;
}

SignatureRuleSource::SignatureRuleSource()
    : directory_("built in"), rules_(std::shared_ptr<const SignatureRules>(
                                  &SignatureRules::builtIn(), [](const SignatureRules*) {})) {}

llvm::Expected<std::unique_ptr<SignatureRuleSource>>
SignatureRuleSource::open(const std::string& directory) {
  auto source = std::make_unique<SignatureRuleSource>();
  source->directory_ = directory;
  source->stamp_ = source->stampOfFiles();
  auto rules = SignatureRules::load(directory);
  if (!rules)
    return rules.takeError();
  source->rules_ = std::make_shared<const SignatureRules>(std::move(*rules));
  source->checked_ = std::chrono::steady_clock::now();
  return source;
}

// Each file's size, modification time and inode: a change to any is a
// change of the rules (an editor's rename included).
std::string SignatureRuleSource::stampOfFiles() const {
  std::string stamp;
  for (const char* file : kFiles) {
    struct stat info {};
    std::string path = directory_ + "/" + file;
    if (::stat(path.c_str(), &info) != 0) {
      stamp += "-;";
      continue;
    }
    stamp += std::to_string(info.st_ino) + ":" + std::to_string(info.st_size) + ":" +
             std::to_string(info.st_mtim.tv_sec) + "." + std::to_string(info.st_mtim.tv_nsec) + ";";
  }
  return stamp;
}

std::shared_ptr<const SignatureRules> SignatureRuleSource::current() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (directory_ == "built in")
    return rules_;
  auto now = std::chrono::steady_clock::now();
  if (now - checked_ < kRecheck)
    return rules_;
  checked_ = now;
  std::string stamp = stampOfFiles();
  if (stamp == stamp_)
    return rules_;
  stamp_ = stamp;
  auto rules = SignatureRules::load(directory_);
  if (!rules) {
    std::string why = llvm::toString(rules.takeError());
    if (report_)
      report_("the signature rules were not changed: " + why);
    return rules_;
  }
  rules_ = std::make_shared<const SignatureRules>(std::move(*rules));
  if (report_)
    report_("signature rules read again from " + directory_);
  return rules_;
}

} // namespace dumpsyms
