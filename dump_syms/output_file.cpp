#include "dump_syms/output_file.h"

#include "object/elf_image.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ext/stdio_filebuf.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <sys/stat.h>
#include <unistd.h>

namespace dumpsyms {

llvm::Error writeFileAtomically(const std::string& path,
                                const std::function<void(std::ostream&)>& write) {
  llvm::SmallString<256> directory(path);
  llvm::sys::path::remove_filename(directory);
  if (directory.empty())
    directory = ".";
  std::string pattern = (directory + "/." + llvm::sys::path::filename(path) + ".XXXXXX").str();
  int fd = mkstemp(pattern.data());
  if (fd < 0)
    return fileError(path, std::string("cannot create the output file: ") + std::strerror(errno));
  std::string temporary = pattern;
  bool ok;
  {
    __gnu_cxx::stdio_filebuf<char> buffer(fd, std::ios::out, 1 << 16);
    std::ostream stream(&buffer);
    write(stream);
    stream.flush();
    ok = stream.good();
    ok = buffer.close() != nullptr && ok;
  }
  if (!ok) {
    int saved = errno;
    std::remove(temporary.c_str());
    return fileError(path, std::string("cannot write the output file: ") + std::strerror(saved));
  }
  // mkstemp creates the file 0600; a symbol file is as readable as any other.
  mode_t mask = umask(0);
  umask(mask);
  chmod(temporary.c_str(), 0666 & ~mask);
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    int saved = errno;
    std::remove(temporary.c_str());
    return fileError(path, std::string("cannot write the output file: ") + std::strerror(saved));
  }
  return llvm::Error::success();
}

} // namespace dumpsyms
