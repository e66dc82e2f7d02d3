// The modules page (/ui/modules): every module of the store A-Z, a letter a
// page, paginated, each with its number of builds and a link to its newest.
#pragma once

#include "store/catalog/store_catalog.h"

#include <string>

namespace dumpsyms {

std::string renderModuleListPage(const CatalogModuleList& list);

} // namespace dumpsyms
