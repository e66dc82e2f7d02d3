// symstore add: a whole release into a symbol store.
#pragma once

#include "dump/flows/options.h"
#include "dump/release/release_plan.h"

#include <string>
#include <vector>

namespace dumpsyms {

struct AddOptions {
  std::string store;
  std::vector<std::string> paths;
  // What every dump is asked for: debug_dirs, inlines, no_cfi, names,
  // path_prefix_map, check_cfi, no_debuginfod.
  Options dump;
  unsigned jobs = 0; // 0: one per core
  // What the dumps running at once may hold, by their estimates (bytes);
  // 0: no more than the largest dump (dump/release/memory_limit.h).
  uint64_t memory_limit = 0;
  std::string manifest;
  // --release PRODUCT/VERSION: record the release's modules in the store
  // (store/layout/releases.h); "" for none.
  std::string release;
  bool force = false;
  ShardSpec shard;
  bool verbose = false;
  bool quiet = false;
};

// Returns the exit status: 0, or 1 when any candidate failed.
int runAdd(const AddOptions& options);

// The arguments of `symstore dump-one` that reproduce `dump` for one binary.
std::vector<std::string> dumpOneArguments(const std::string& self, const std::string& store,
                                          const Options& dump, const std::string& binary,
                                          const std::string& debug_file, unsigned threads);

} // namespace dumpsyms
