// Whether a client's Accept-Encoding (RFC 9110 section 12.5.3) takes gzip.
#pragma once

#include <string>

namespace dumpsyms {

// True when "gzip" (or "x-gzip", or "*" without gzip named) is listed with a
// q-value above zero.
bool acceptsGzip(const std::string& accept_encoding);

} // namespace dumpsyms
