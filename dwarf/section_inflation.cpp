#include "dwarf/section_inflation.h"

#include "dwarf/chunked_inflate.h"
#include "object/section_rewriter.h"

#include <cstring>
#include <llvm/BinaryFormat/ELF.h>
#include <llvm/Object/Decompressor.h>
#include <llvm/Support/ThreadPool.h>
#include <llvm/Support/Threading.h>
#include <set>

namespace dumpsyms {

namespace {

// DWARF sections a dump never reads.
const std::set<std::string> kUnread = {
    ".debug_loc",          ".debug_loclists", ".debug_aranges",  ".debug_macro",
    ".debug_macinfo",      ".debug_pubnames", ".debug_pubtypes", ".debug_gnu_pubnames",
    ".debug_gnu_pubtypes", ".debug_names",    ".debug_loc.dwo",  ".debug_loclists.dwo",
    ".debug_macro.dwo"};

bool isDwarf(const std::string& name) {
  return llvm::StringRef(name).starts_with(".debug_");
}

// Sections of DIEs, which the parser may overrun on corrupt input.
bool holdsUnits(const std::string& name) {
  return name == ".debug_info" || name == ".debug_types" || name == ".debug_info.dwo" ||
         name == ".debug_types.dwo";
}

// Far more than one DIE's worth of fixed-size attributes.
constexpr uint64_t kGuard = 4096;

} // namespace

std::unique_ptr<ElfImage> prepareDwarfSections(const ElfImage& image, unsigned threads,
                                               std::vector<std::string>& warnings) {
  const std::vector<ElfSection>& sections = image.sections();
  std::vector<SectionPlan> plan;
  std::vector<std::optional<llvm::object::Decompressor>> decompressors;
  bool has_units = false;
  for (size_t i = 0; i < sections.size(); ++i) {
    const ElfSection& section = sections[i];
    if (!section.hasBytes() || !isDwarf(section.name))
      continue;
    has_units |= holdsUnits(section.name);
    uint64_t guard = holdsUnits(section.name) ? kGuard : 0;
    if (!(section.flags & llvm::ELF::SHF_COMPRESSED)) {
      if (guard) // copied as it is, to get the guard
        plan.push_back({i, section.size, std::nullopt, guard});
      else
        continue;
      decompressors.emplace_back();
      continue;
    }
    if (kUnread.count(section.name)) {
      plan.push_back({i, 0, std::nullopt}); // left empty
      decompressors.emplace_back();
      continue;
    }
    llvm::StringRef raw = image.bytes().substr(section.offset, section.size);
    auto decompressor = llvm::object::Decompressor::create(section.name, raw,
                                                           image.isLittleEndian(), image.is64Bit());
    if (!decompressor) {
      llvm::consumeError(decompressor.takeError());
      return nullptr; // LLVM reports the bad header itself
    }
    if (!plausibleInflatedSize(decompressor->getDecompressedSize(), raw.size()))
      return nullptr;
    plan.push_back({i, decompressor->getDecompressedSize(), std::nullopt, guard});
    decompressors.emplace_back(std::move(*decompressor));
  }
  if (plan.empty() || !has_units)
    return nullptr;

  auto rewritten = rewriteSections(llvm::MemoryBufferRef(image.bytes(), image.path()), plan);
  if (!rewritten) {
    warnings.push_back(image.path() + ": " + llvm::toString(rewritten.takeError()));
    return nullptr;
  }
  // Each section inflates straight into its place in the copy.
  std::vector<std::string> errors(plan.size());
  auto inflate = [&](size_t k) {
    llvm::MutableArrayRef<char> out = rewritten->contents[k];
    if (!decompressors[k]) {
      const ElfSection& section = sections[plan[k].index];
      if (!(section.flags & llvm::ELF::SHF_COMPRESSED))
        std::memcpy(out.data(), image.bytes().data() + section.offset, out.size());
      return;
    }
    // The compressed bytes read so far leave memory as inflation goes on.
    const ElfSection& section = sections[plan[k].index];
    uint64_t released = 0;
    auto consumed = [&](uint64_t bytes) {
      image.dropPages(section.offset + released, bytes - released);
      released = bytes;
    };
    if (inflateInChunks(image.bytes().substr(section.offset, section.size), image.is64Bit(),
                        image.isLittleEndian(), out, consumed))
      return;
    if (llvm::Error error =
            decompressors[k]->decompress({reinterpret_cast<uint8_t*>(out.data()), out.size()}))
      errors[k] = image.path() + ": cannot inflate section '" + sections[plan[k].index].name +
                  "': " + llvm::toString(std::move(error));
  };
  if (threads <= 1 || plan.size() == 1) {
    for (size_t k = 0; k < plan.size(); ++k)
      inflate(k);
  } else {
    llvm::DefaultThreadPool pool(llvm::hardware_concurrency(threads));
    for (size_t k = 0; k < plan.size(); ++k)
      pool.async([&, k] { inflate(k); });
    pool.wait();
  }
  for (const std::string& error : errors)
    if (!error.empty()) {
      warnings.push_back(error);
      return nullptr;
    }
  // The compressed bytes are read once, here: most of a compressed debug
  // file, mapped and resident until the dump ends, unless dropped.
  for (size_t k = 0; k < plan.size(); ++k)
    if (decompressors[k])
      image.dropPages(sections[plan[k].index].offset, sections[plan[k].index].size);
  auto inflated = ElfImage::fromBuffer(std::move(rewritten->buffer), image.path());
  if (!inflated) {
    warnings.push_back(llvm::toString(inflated.takeError()));
    return nullptr;
  }
  return std::move(*inflated);
}

} // namespace dumpsyms
