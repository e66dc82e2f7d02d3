#include "store/symbol_servers/symbol_fetch_error.h"

namespace dumpsyms {

char SymbolFetchError::ID = 0;

} // namespace dumpsyms
