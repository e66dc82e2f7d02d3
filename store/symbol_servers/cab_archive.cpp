#include "store/symbol_servers/cab_archive.h"

#include <cstdio>
#include <fmt/format.h>
#include <llvm/ADT/StringExtras.h>
#include <memory>
#include <mspack.h>

namespace dumpsyms {

namespace {

llvm::Error cabError(const std::string& path, const std::string& what) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s: %s", path.c_str(),
                                 what.c_str());
}

const char* mspackError(int code) {
  switch (code) {
  case MSPACK_ERR_OPEN:
    return "cannot be opened";
  case MSPACK_ERR_READ:
    return "cannot be read (truncated?)";
  case MSPACK_ERR_WRITE:
    return "the expanded file cannot be written";
  case MSPACK_ERR_SEEK:
    return "a seek failed (truncated?)";
  case MSPACK_ERR_NOMEMORY:
    return "out of memory";
  case MSPACK_ERR_SIGNATURE:
    return "not a cabinet (bad signature)";
  case MSPACK_ERR_DATAFORMAT:
    return "a corrupt cabinet";
  case MSPACK_ERR_CHECKSUM:
    return "a block's checksum is wrong";
  case MSPACK_ERR_DECRUNCH:
    return "its data does not decompress";
  default:
    return "a cabinet libmspack cannot read";
  }
}

struct Decompressor {
  mscab_decompressor* d = mspack_create_cab_decompressor(nullptr);
  mscabd_cabinet* cabinet = nullptr;
  ~Decompressor() {
    if (d && cabinet)
      d->close(d, cabinet);
    if (d)
      mspack_destroy_cab_decompressor(d);
  }
};

} // namespace

bool looksLikeCab(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file)
    return false;
  char magic[4] = {};
  size_t got = std::fread(magic, 1, 4, file);
  std::fclose(file);
  return got == 4 && std::string(magic, 4) == "MSCF";
}

llvm::Error expandCabFile(const std::string& cab_path, const std::string& want,
                          const std::string& out_path, uint64_t limit) {
  Decompressor cab;
  if (!cab.d)
    return cabError(cab_path, "libmspack cannot start (its self-test failed)");
  // (libmspack takes names as char*, not const: it does not write them)
  std::string name = cab_path;
  cab.cabinet = cab.d->open(cab.d, name.data());
  if (!cab.cabinet)
    return cabError(cab_path, mspackError(cab.d->last_error(cab.d)));
  mscabd_file* chosen = nullptr;
  size_t count = 0;
  for (mscabd_file* file = cab.cabinet->files; file; file = file->next) {
    ++count;
    if (!chosen || (file->filename && llvm::StringRef(file->filename).equals_insensitive(want)))
      chosen = file;
  }
  if (!chosen)
    return cabError(cab_path, "the cabinet holds no file");
  if (count > 1 &&
      !(chosen->filename && llvm::StringRef(chosen->filename).equals_insensitive(want)))
    return cabError(cab_path,
                    fmt::format("the cabinet holds {} files and none is {}", count, want));
  if (chosen->length > limit)
    return cabError(cab_path, fmt::format("its file is {} bytes: over the limit of {} bytes",
                                          chosen->length, limit));
  std::string out = out_path;
  int result = cab.d->extract(cab.d, chosen, out.data());
  if (result != MSPACK_ERR_OK) {
    std::remove(out_path.c_str());
    return cabError(cab_path, mspackError(result));
  }
  return llvm::Error::success();
}

} // namespace dumpsyms
