// The store page (/): the store at a glance (modules, files, bytes, the
// latest uploads), the search box, and a search's results, one page of
// them, each linking to its module page.
#pragma once

#include "store/catalog/store_catalog.h"

#include <optional>
#include <string>

namespace dumpsyms {

struct HomePageInput {
  const CatalogSummary* summary = nullptr;
  std::string query;                     // "" when nothing was searched
  std::optional<CatalogResults> results; // set when query is not empty
  size_t problems = 0;                   // files the catalog could not read
};

std::string renderHomePage(const HomePageInput& input);

} // namespace dumpsyms
