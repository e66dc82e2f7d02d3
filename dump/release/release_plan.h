// Decides what a release's files become: which are modules to dump, which
// are separate debug files that serve another file, which are copies of a
// module reached by another path, which are already in the store, and
// which belong to another shard. Reads ELF headers only; dumps nothing.
#pragma once

#include "dump/flows/options.h"
#include "dump/release/release_scan.h"
#include "store/layout/manifest.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dumpsyms {

struct ShardSpec {
  unsigned index = 0; // K
  unsigned count = 1; // N
};

// Which shard a candidate's stable key belongs to (xxh3 of the key, mod N).
unsigned shardOf(const std::string& key, unsigned shard_count);

struct PlannedDump {
  size_t entry = 0;       // index into ReleasePlan::entries
  uint64_t cost = 0;      // estimated bytes of DWARF the dump reads
  std::string debug_file; // passed as --debug-file ("" : the dump looks itself)
  std::string arch;       // passed as --arch: a Mach-O slice
};

struct ReleasePlan {
  std::vector<ManifestEntry> entries; // this shard's candidates, in scan order
  std::vector<PlannedDump> dumps;     // entries to dump (status set when done)
  uint64_t debug_files = 0;           // separate debug files (not candidates)
  uint64_t non_elf = 0;               // files skipped as not ELF (or as core dumps)
  uint64_t other_shards = 0;          // candidates of other shards
  uint64_t bytes_to_read = 0;         // sizes of the files to dump, for progress
};

struct PlanOptions {
  std::string store;
  bool force = false;
  ShardSpec shard;
};

ReleasePlan planRelease(const ReleaseScan& scan, const Options& dump_options,
                        const PlanOptions& plan_options);

} // namespace dumpsyms
