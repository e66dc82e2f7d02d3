#include "store/layout/code_id_index.h"

#include "common/errors/file_error.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <unistd.h>

namespace dumpsyms {

std::string codeIdRelativePath(const std::string& code_file, const CodeId& code_id) {
  return code_file + "/" + code_id.str() + "/" + code_file + ".sym";
}

llvm::Error linkCodeId(const std::string& store_root, const std::string& code_file,
                       const CodeId& code_id, const std::string& symbol_relative) {
  if (code_file.empty() || code_id.empty() || code_file.find('/') != std::string::npos ||
      code_file == "." || code_file == ".." || code_id.str().find('/') != std::string::npos)
    return llvm::Error::success(); // nothing a path can be made of
  std::string link = store_root + "/" + codeIdRelativePath(code_file, code_id);
  if (std::error_code error = llvm::sys::fs::create_directories(llvm::sys::path::parent_path(link)))
    return fileError(link, "cannot create the directory: " + error.message());
  // From <code_file>/<code_id>/ back to the store's root.
  std::string target = "../../" + symbol_relative;
  std::string temporary = link + ".link-" + std::to_string(getpid());
  std::remove(temporary.c_str());
  if (symlink(target.c_str(), temporary.c_str()) != 0)
    return fileError(link, std::string("cannot link the code id: ") + std::strerror(errno));
  if (std::rename(temporary.c_str(), link.c_str()) != 0) {
    int saved = errno;
    std::remove(temporary.c_str());
    return fileError(link, std::string("cannot link the code id: ") + std::strerror(saved));
  }
  return llvm::Error::success();
}

} // namespace dumpsyms
