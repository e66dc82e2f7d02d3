// One dump into a store, in this process: the work of `symstore dump-one`,
// which symstore add runs as a child process per module so that a file
// that crashes or exhausts a dump costs only its own entry.
#pragma once

#include "dump/flows/options.h"
#include "store/layout/manifest.h"

namespace dumpsyms {

// Dumps options.binary into options.store (atomically) and describes the
// outcome as a manifest entry (status written, no-debug-info or failed).
ManifestEntry dumpIntoStore(const Options& options);

} // namespace dumpsyms
