// microdump_stackwalk's manual: the source of its usage text, man page and
// completion.
#pragma once

#include "common/command_line/manual.h"

namespace dumpsyms {

const ToolManual& microdumpStackwalkManual();

} // namespace dumpsyms
