#include "server/downloads/accept_encoding.h"

#include <llvm/ADT/SmallVector.h>
#include <llvm/ADT/StringRef.h>
#include <optional>

namespace dumpsyms {
namespace {

// The q-value of one list member ("gzip;q=0.5"); 1 when not given.
double qualityOf(llvm::StringRef parameters) {
  llvm::SmallVector<llvm::StringRef, 2> pieces;
  parameters.split(pieces, ';', -1, false);
  for (llvm::StringRef piece : pieces) {
    auto [name, value] = piece.split('=');
    if (!name.trim().equals_insensitive("q"))
      continue;
    double q = 1;
    if (value.trim().getAsDouble(q))
      return 0; // an unreadable weight is not an acceptance
    return q;
  }
  return 1;
}

} // namespace

bool acceptsGzip(const std::string& accept_encoding) {
  llvm::SmallVector<llvm::StringRef, 4> members;
  llvm::StringRef(accept_encoding).split(members, ',', -1, false);
  std::optional<double> gzip, any;
  for (llvm::StringRef member : members) {
    auto [coding, parameters] = member.split(';');
    coding = coding.trim();
    double q = qualityOf(parameters);
    if (coding.equals_insensitive("gzip") || coding.equals_insensitive("x-gzip"))
      gzip = q;
    else if (coding == "*")
      any = q;
  }
  if (gzip)
    return *gzip > 0;
  return any && *any > 0;
}

} // namespace dumpsyms
