// A set of disjoint address ranges with logarithmic overlap queries.
#pragma once

#include "symbol_writer/module.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <vector>

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
  // The parts of `range` the set does not cover, ascending.
  std::vector<AddressRange> gaps(const AddressRange& range) const {
    std::vector<AddressRange> out;
    uint64_t at = range.start;
    auto next = starts_.upper_bound(range.start);
    if (next != starts_.begin() && std::prev(next)->second > at)
      at = std::prev(next)->second;
    for (; next != starts_.end() && next->first < range.end && at < range.end; ++next) {
      if (next->first > at)
        out.push_back({at, next->first});
      at = std::max(at, next->second);
    }
    if (at < range.end)
      out.push_back({at, range.end});
    return out;
  }

private:
  std::map<uint64_t, uint64_t> starts_; // start -> end
};

} // namespace dumpsyms
