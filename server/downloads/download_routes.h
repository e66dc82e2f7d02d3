// What a download request asks for, read from its path alone: a file of
// the store named by three components (Breakpad/Tecken's
// /<debug_file>/<ID>/<name>, its code-id form, Microsoft's SSQP keys), or a
// debuginfod artifact by build id. Nothing here touches the store.
#pragma once

#include "common/ids/build_id.h"

#include <string>
#include <vector>

namespace dumpsyms {

struct DownloadRoute {
  enum class Kind {
    NotARoute,  // no shape a client asks for: 404
    StoreFile,  // components = {file, id, name}
    Debuginfod, // build_id + artifact (+ section)
  };
  enum class Artifact { Debuginfo, Executable, Section };

  Kind kind = Kind::NotARoute;
  std::vector<std::string> components;
  BuildId build_id;
  Artifact artifact = Artifact::Debuginfo;
  std::string section; // for Artifact::Section, e.g. ".debug_info"
  // A Debuginfod route asked in SSQP's keys for ELF files (what WinDbg,
  // Visual Studio and dotnet-symbol send for Linux modules):
  //   /<file>/elf-buildid-<BUILDID>/<file>        the executable
  //   /_.debug/elf-buildid-sym-<BUILDID>/_.debug  its debug file
  bool ssqp = false;
};

// `path` as the server decoded it, starting with '/'.
DownloadRoute parseDownloadRoute(const std::string& path);

// Whether a build id is what debuginfod clients send: hex digits, an even
// count, at most 64 bytes' worth (elfutils' limit is the same).
bool isBuildIdText(const std::string& text);

} // namespace dumpsyms
