#include "server/browse/module_summaries.h"

#include "symbol_file/text/text_reader.h"

namespace dumpsyms {

ModuleSummary summarizeModule(const Module& module, size_t parse_problems) {
  ModuleSummary s;
  static_cast<SymbolFileHeader&>(s) = headerOf(module);
  s.stats = computeStats(module);
  s.coverage = computeCoverage(module);
  s.parse_problems = parse_problems;
  return s;
}

std::shared_ptr<const ModuleSummary> ModuleSummaries::compute(llvm::StringRef text) {
  ParsedSymbolFile parsed = readSymbolFile(text);
  return std::make_shared<const ModuleSummary>(
      summarizeModule(parsed.module, parsed.problems.size()));
}

std::shared_ptr<const ModuleSummary> ModuleSummaries::find(const std::string& key) {
  std::lock_guard<std::mutex> lock(cache_mutex_);
  auto it = cache_.find(key);
  if (it == cache_.end())
    return nullptr;
  order_.splice(order_.begin(), order_, it->second.second);
  return it->second.first;
}

void ModuleSummaries::keep(const std::string& key, std::shared_ptr<const ModuleSummary> summary) {
  std::lock_guard<std::mutex> lock(cache_mutex_);
  if (cache_.count(key))
    return;
  order_.push_front(key);
  cache_.emplace(key, std::make_pair(std::move(summary), order_.begin()));
  while (cache_.size() > capacity_) {
    cache_.erase(order_.back());
    order_.pop_back();
  }
}

} // namespace dumpsyms
