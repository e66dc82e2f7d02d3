// Runs a program and collects what it prints. The child dies with its
// parent (PR_SET_PDEATHSIG), so that a killed symstore leaves no dumps
// running on behind it.
#pragma once

#include <string>
#include <vector>

namespace dumpsyms {

struct ChildResult {
  int exit_code = -1; // -1 when it did not exit normally
  int signal = 0;     // the signal that ended it, if one did
  std::string out;
  std::string err;
  std::string spawn_error; // set when it could not be started
};

ChildResult runChild(const std::vector<std::string>& argv);

// The path of the running executable (to start copies of this tool).
std::string selfExecutable();

} // namespace dumpsyms
