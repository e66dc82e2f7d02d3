// A PUT body sent with Content-Encoding: gzip (symstore upload --gzip),
// inflated into a spool file, counted while it inflates: past the caps'
// entry bytes or ratio the upload is refused (413).
#pragma once

#include "server/ingest/inflate_caps.h"
#include "server/ingest/spool_file.h"
#include "server/ingest/upload_refusal.h"

#include <optional>
#include <string>

namespace dumpsyms {

std::optional<UploadRefusal> inflateGzipBody(const std::string& gzip_path, SpoolFile& out,
                                             const InflateCaps& caps);

} // namespace dumpsyms
