// dump_syms' manual: the source of its --help footer, man page and completion.
#pragma once

#include "common/command_line/manual.h"

namespace dumpsyms {

const ToolManual& dumpSymsManual();

} // namespace dumpsyms
