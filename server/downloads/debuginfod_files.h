// debuginfod's artifacts from a store made with `symstore add
// --keep-binaries`: the .build-id entry (store/layout/layout.h) names the kept
// executable and debug file of a build id; a section is looked for in the
// debug file first, then in the executable, as elfutils' debuginfod does,
// and one without bytes there (SHT_NOBITS) is not found.
#pragma once

#include "server/downloads/download_routes.h"
#include "server/downloads/entity_response.h"
#include "store/backend/store_backend.h"
#include "store/layout/layout.h"

#include <optional>

namespace dumpsyms {

// The .build-id entry of `build_id` (checked hex), or none: no entry, one
// that does not parse, or one longer than an entry can be (a read cut at
// its limit could leave a shorter path that still parses).
llvm::Expected<std::optional<BuildIdEntry>> readBuildIdEntry(StoreBackend& store,
                                                             const BuildId& build_id);

// What to serve for `route` (a Debuginfod route), or none (404).
llvm::Expected<std::optional<ServedEntity>> findDebuginfodEntity(StoreBackend& store,
                                                                 const DownloadRoute& route);

} // namespace dumpsyms
