// The module page's values for a symbol file: parsed once, counted
// (computeStats), its coverage computed (computeCoverage), and kept by
// the file's ETag so that the next visit costs nothing. One file is
// parsed at a time: a 170 MB symbol file's model takes gigabytes, and a
// few visitors at once must not take that many times over.
#pragma once

#include "server/pages/module_page.h"

#include <cstddef>
#include <list>
#include <llvm/ADT/StringRef.h>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace dumpsyms {

struct Module;

// What the pages print of a parsed module.
ModuleSummary summarizeModule(const Module& module, size_t parse_problems);

class ModuleSummaries {
public:
  explicit ModuleSummaries(size_t capacity = 64) : capacity_(capacity) {}

  // The summary of the file known as `key` (its path and ETag), computed
  // from `read_text()` on a miss.
  template <class ReadText>
  llvm::Expected<std::shared_ptr<const ModuleSummary>> get(const std::string& key,
                                                           ReadText read_text);

private:
  std::shared_ptr<const ModuleSummary> find(const std::string& key);
  void keep(const std::string& key, std::shared_ptr<const ModuleSummary> summary);
  static std::shared_ptr<const ModuleSummary> compute(llvm::StringRef text);

  size_t capacity_;
  std::mutex cache_mutex_;
  std::mutex parse_mutex_;       // one parse at a time
  std::list<std::string> order_; // most recently used first
  std::unordered_map<std::string, std::pair<std::shared_ptr<const ModuleSummary>,
                                            std::list<std::string>::iterator>>
      cache_;
};

template <class ReadText>
llvm::Expected<std::shared_ptr<const ModuleSummary>> ModuleSummaries::get(const std::string& key,
                                                                          ReadText read_text) {
  if (auto hit = find(key))
    return hit;
  std::lock_guard<std::mutex> parsing(parse_mutex_);
  if (auto hit = find(key)) // computed while this one waited
    return hit;
  auto text = read_text();
  if (!text)
    return text.takeError();
  std::shared_ptr<const ModuleSummary> summary = compute((*text)->getBuffer());
  keep(key, summary);
  return summary;
}

} // namespace dumpsyms
