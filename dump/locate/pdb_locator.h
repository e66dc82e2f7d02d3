// Where to look for the PDB a PE file names in its CodeView record, in
// order: --debug-file, the path the linker recorded (a Windows path is
// also tried with '/' separators), the PDB's file name beside the PE, then
// in each DEBUG_DIR.
#pragma once

#include <string>
#include <vector>

namespace dumpsyms {

std::vector<std::string> pdbCandidates(const std::string& pe_path, const std::string& recorded,
                                       const std::string& debug_file,
                                       const std::vector<std::string>& debug_dirs);

// The file name of a recorded PDB path, whichever separators it uses.
std::string pdbFileName(const std::string& recorded);

} // namespace dumpsyms
