// Where Windows tools look for PDBs and PEs: the `_NT_SYMBOL_PATH` syntax
// (dbghelp's, WinDbg's, Visual Studio's), and what a symbol server's
// `file.ptr` answer says. Entries are separated by ';':
//   srv*CACHE*...*SERVER   a symbol server (a URL or a directory laid out as
//                          a store), each CACHE a downstream store it fills;
//                          "srv*SERVER" caches in the default cache, as an
//                          empty CACHE ("srv**SERVER") does
//   symsrv*DLL*CACHE*...*SERVER   the same, naming the DLL that serves it
//   cache*DIR              DIR (or the default, "cache*") caches what every
//                          entry after it finds
//   DIR                    a directory: a store (DIR/<name>/<key>/<name>)
//                          or the files themselves (DIR/<name>)
#pragma once

#include "common/ids/debug_id.h"

#include <optional>
#include <string>
#include <vector>

namespace dumpsyms {

struct WindowsSymbolSource {
  bool server = false;             // a symbol server (srv*); else a plain directory
  std::string location;            // the server's URL or directory, or the directory
  std::vector<std::string> caches; // downstream stores, nearest first
};

// `default_cache` stands for an empty or omitted cache.
std::vector<WindowsSymbolSource> parseWindowsSymbolPath(const std::string& path,
                                                        const std::string& default_cache);

// One --symbol-server SPEC: an entry in the syntax above, or a bare URL
// (a server cached in the default cache).
std::vector<WindowsSymbolSource> parseSymbolServerSpec(const std::string& spec,
                                                       const std::string& default_cache);

// A `file.ptr` answer: "PATH:<where the file is>" or "MSG:<why not>".
struct FilePointer {
  std::optional<std::string> path;
  std::string message; // the MSG: text, or what is wrong with the answer
};
FilePointer parseFilePointer(const std::string& answer);

// The key a symbol server files a PDB under: the GUID and the age, in
// upper-case hex ("<GUID><AGE>" = the debug id, upper-cased), and a PE
// under: TimeDateStamp (8 digits) and SizeOfImage ("%08X%x" as written by
// Microsoft's symstore; looked up either case).
std::string pdbServerKey(const DebugId& debug_id);

} // namespace dumpsyms
