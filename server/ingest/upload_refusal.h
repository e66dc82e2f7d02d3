// Why an upload is refused: the HTTP status and the one-line reason the
// client reads in the body.
#pragma once

#include <string>

namespace dumpsyms {

struct UploadRefusal {
  int status = 400; // 400 bad request, 409 conflict, 413 too large, 415 not a .sym, 422 bad .sym
  std::string reason;
};

} // namespace dumpsyms
