#include "dump/dwarf/section_inflation.h"

#include "dump/object/compressed_section.h"
#include "dump/object/section_rewriter.h"

#include <algorithm>
#include <cstring>
#include <llvm/BinaryFormat/ELF.h>
#include <llvm/Object/Decompressor.h>
#include <llvm/Support/Endian.h>
#include <llvm/Support/ThreadPool.h>
#include <llvm/Support/Threading.h>
#include <set>
#include <sys/mman.h>
#include <unistd.h>

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

constexpr uint64_t kPopulateAhead = uint64_t(32) << 20;

// The whole pages inside [start, start + size), faulted in writable.
void populateForWriting(char* start, uint64_t size) {
#ifdef MADV_POPULATE_WRITE
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  uintptr_t first = (reinterpret_cast<uintptr_t>(start) + page - 1) & ~(page - 1);
  uintptr_t end = (reinterpret_cast<uintptr_t>(start) + size) & ~(page - 1);
  if (end > first)
    madvise(reinterpret_cast<void*>(first), end - first, MADV_POPULATE_WRITE);
#else
  (void)start;
  (void)size;
#endif
}

} // namespace

struct DwarfInflation::Plan {
  SectionPlan section;
  std::optional<llvm::object::Decompressor> decompressor;
};

DwarfInflation::~DwarfInflation() {
  if (pool_)
    pool_->wait();
}

std::unique_ptr<DwarfInflation> DwarfInflation::start(const ElfImage& image, unsigned threads,
                                                      std::vector<std::string>& warnings) {
  std::unique_ptr<DwarfInflation> inflation(new DwarfInflation());
  inflation->image_ = &image;
  std::vector<Plan>& plan = inflation->plan_;
  const std::vector<ElfSection>& sections = image.sections();
  bool has_units = false;
  for (size_t i = 0; i < sections.size(); ++i) {
    const ElfSection& section = sections[i];
    if (!section.hasBytes() || !isDwarf(section.name))
      continue;
    has_units |= holdsUnits(section.name);
    uint64_t guard = holdsUnits(section.name) ? kGuard : 0;
    if (!(section.flags & llvm::ELF::SHF_COMPRESSED)) {
      if (guard) // copied as it is, to get the guard
        plan.push_back({{i, section.size, std::nullopt, guard}, std::nullopt});
      continue;
    }
    if (kUnread.count(section.name)) {
      plan.push_back({{i, 0, std::nullopt}, std::nullopt}); // left empty
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
    plan.push_back(
        {{i, decompressor->getDecompressedSize(), std::nullopt, guard}, std::move(*decompressor)});
  }
  if (plan.empty() || !has_units)
    return nullptr;

  std::vector<SectionPlan> layout;
  for (const Plan& entry : plan)
    layout.push_back(entry.section);
  auto rewritten = rewriteSections(llvm::MemoryBufferRef(image.bytes(), image.path()), layout);
  if (!rewritten) {
    warnings.push_back(image.path() + ": " + llvm::toString(rewritten.takeError()));
    return nullptr;
  }
  inflation->buffer_ = std::move(rewritten->buffer);
  inflation->contents_ = std::move(rewritten->contents);
  inflation->errors_.resize(plan.size());

  // What a context over the copy would see, by name: the planned sections
  // at their new place, the others (plain) where they were.
  const char* base = inflation->buffer_->getBufferStart();
  for (size_t i = 0; i < sections.size(); ++i)
    if (sections[i].hasBytes() && isDwarf(sections[i].name) &&
        !(sections[i].flags & llvm::ELF::SHF_COMPRESSED))
      inflation->sections_[llvm::StringRef(sections[i].name).drop_front()] =
          llvm::StringRef(base + sections[i].offset, sections[i].size);
  for (size_t k = 0; k < plan.size(); ++k) {
    llvm::MutableArrayRef<char> out = inflation->contents_[k];
    inflation->sections_[llvm::StringRef(sections[plan[k].section.index].name).drop_front()] =
        llvm::StringRef(out.data(), out.size());
  }

  // Largest first: .debug_info is most of the work, and the walk can start
  // on it while the rest inflate.
  std::vector<size_t> order(plan.size());
  for (size_t k = 0; k < order.size(); ++k)
    order[k] = k;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return plan[a].section.size > plan[b].section.size; });
  if (threads <= 1 || plan.size() == 1) {
    inflation->others_left_ = plan.size();
    for (size_t k : order)
      inflation->inflate(k);
    return inflation;
  }
  for (size_t k : order) {
    const ElfSection& section = sections[plan[k].section.index];
    if (section.name != ".debug_info" || !plan[k].decompressor)
      continue;
    uint32_t type = image.isLittleEndian()
                        ? llvm::support::endian::read32le(image.bytes().data() + section.offset)
                        : llvm::support::endian::read32be(image.bytes().data() + section.offset);
    // zlib reads back the last 32 KiB it wrote at most; zstd up to its
    // window, which can be most of the section.
    if (type == llvm::ELF::ELFCOMPRESS_ZLIB)
      inflation->info_ = k;
  }
  inflation->others_left_ = plan.size() - (inflation->info_ == kNone ? 0 : 1);
  inflation->pool_ = std::make_unique<llvm::DefaultThreadPool>(llvm::hardware_concurrency(threads));
  DwarfInflation* self = inflation.get();
  for (size_t k : order)
    inflation->pool_->async([self, k] { self->inflate(k); });
  return inflation;
}

void DwarfInflation::inflate(size_t k) {
  const ElfSection& section = image_->sections()[plan_[k].section.index];
  llvm::MutableArrayRef<char> out = contents_[k];
  bool background = k == info_;
  auto done = [&](bool failed) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (background) {
      info_ended_ = true;
      info_failed_ |= failed;
      if (!failed)
        info_final_ = out.size();
    } else {
      --others_left_;
      others_failed_ |= failed;
    }
    changed_.notify_all();
  };
  if (!plan_[k].decompressor) {
    if (!(section.flags & llvm::ELF::SHF_COMPRESSED))
      std::memcpy(out.data(), image_->bytes().data() + section.offset, out.size());
    done(false);
    return;
  }
  // The compressed bytes read so far leave memory as inflation goes on.
  uint64_t released = 0;
  // The output pages are new: faulting them in 32 MiB ahead, one call at
  // a time, costs the inflating thread far less than a fault per page
  // (MADV_POPULATE_WRITE, Linux 5.14; older kernels refuse it, harmlessly).
  uint64_t populated = 0;
  auto populate = [&](uint64_t produced) {
    uint64_t want = std::min<uint64_t>(out.size(), produced + kPopulateAhead);
    if (want < populated + kPopulateAhead / 4 && want != out.size())
      return;
    populateForWriting(out.data() + populated, want - populated);
    populated = want;
  };
  populate(0);
  auto progress = [&](uint64_t consumed, uint64_t produced) {
    populate(produced);
    image_->dropPages(section.offset + released, consumed - released);
    released = consumed;
    if (background) {
      std::unique_lock<std::mutex> lock(mutex_);
      // The last 32 KiB may still be read back by zlib: not final yet.
      info_final_ = produced > kZlibWindow ? produced - kZlibWindow : 0;
      changed_.notify_all();
      changed_.wait(lock, [&] {
        return !pacing_ || readers_waiting_ > 0 || produced <= read_to_ + kPaceWindow;
      });
    }
  };
  if (inflateInChunks(image_->bytes().substr(section.offset, section.size), image_->is64Bit(),
                      image_->isLittleEndian(), out, progress)) {
    done(false);
    return;
  }
  if (background) {
    // Readers of the bytes said final stop before they are written again.
    {
      std::lock_guard<std::mutex> lock(mutex_);
      info_failed_ = true;
      info_final_ = 0;
      changed_.notify_all();
    }
    std::lock_guard<std::mutex> wait_for_readers(reading_);
  }
  if (llvm::Error error =
          plan_[k].decompressor->decompress({reinterpret_cast<uint8_t*>(out.data()), out.size()})) {
    errors_[k] = image_->path() + ": cannot inflate section '" + section.name +
                 "': " + llvm::toString(std::move(error));
    done(true);
    return;
  }
  done(false);
}

bool DwarfInflation::waitForOtherSections() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return others_left_ == 0; });
  return !others_failed_;
}

bool DwarfInflation::unitBytesEnded() {
  std::lock_guard<std::mutex> lock(mutex_);
  return info_ended_ || info_failed_;
}

bool DwarfInflation::unitBytesFailed() {
  std::lock_guard<std::mutex> lock(mutex_);
  return info_failed_;
}

void DwarfInflation::startPacing() {
  std::lock_guard<std::mutex> lock(mutex_);
  pacing_ = true;
}

void DwarfInflation::stopPacing() {
  std::lock_guard<std::mutex> lock(mutex_);
  pacing_ = false;
  changed_.notify_all();
}

void DwarfInflation::unitsReadTo(uint64_t offset) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (offset <= read_to_)
    return;
  read_to_ = offset;
  changed_.notify_all();
}

uint64_t DwarfInflation::waitForUnitBytes(uint64_t known, bool& done) {
  std::unique_lock<std::mutex> lock(mutex_);
  // A reader that waits has caught up: the stream must not wait for it.
  ++readers_waiting_;
  changed_.notify_all();
  changed_.wait(lock, [&] { return info_ended_ || info_failed_ || info_final_ > known; });
  --readers_waiting_;
  done = info_ended_ && !info_failed_;
  return info_failed_ ? 0 : info_final_;
}

std::unique_ptr<ElfImage> DwarfInflation::finish(std::vector<std::string>& warnings) {
  if (pool_)
    pool_->wait();
  for (const std::string& error : errors_)
    if (!error.empty()) {
      warnings.push_back(error);
      return nullptr;
    }
  // The compressed bytes are read once, here: most of a compressed debug
  // file, mapped and resident until the dump ends, unless dropped.
  for (const Plan& entry : plan_)
    if (entry.decompressor)
      image_->dropPages(image_->sections()[entry.section.index].offset,
                        image_->sections()[entry.section.index].size);
  auto inflated = ElfImage::fromBuffer(std::move(buffer_), image_->path());
  if (!inflated) {
    warnings.push_back(llvm::toString(inflated.takeError()));
    return nullptr;
  }
  return std::move(*inflated);
}

} // namespace dumpsyms
