// A set of disjoint address ranges with logarithmic overlap queries.
#pragma once

#include "symbol_file/model/module.h"

#include <map>

namespace dumpsyms {

class IntervalSet {
public:
  bool overlaps(const AddressRange& range) const {
    auto next = starts_.lower_bound(range.end);
    if (next == starts_.begin())
      return false;
    --next;
    return next->second > range.start;
  }
  // Callers insert only ranges that do not overlap the set.
  void insert(const AddressRange& range) { starts_.emplace(range.start, range.end); }

private:
  std::map<uint64_t, uint64_t> starts_; // start -> end
};

} // namespace dumpsyms
