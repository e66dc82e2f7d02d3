// The anchors of the inflation goal (issue 26, docs/PERFORMANCE.md): the
// time to inflate every SHF_COMPRESSED zlib section of one ELF file, one
// after the other on one thread, with zlib's decoder and with ISA-L's, in
// the same process, each twice: into new buffers (`fresh`: the page faults
// of the output counted, as a program inflating them pays them) and into
// buffers already faulted in (`warm`: the decoder alone).
//
//   inflate_sections FILE [RUNS]     best of RUNS (3) for each
//
// Prints one line per decoder and kind: `zlib fresh SECONDS BYTES`,
// `zlib warm ...`, `isal fresh ...`, `isal warm ...`.
// Run on demand by bench/inflate_bench.py; nothing in CI runs it.
#include "dump/object/zlib_inflate.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <llvm/BinaryFormat/ELF.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Support/MemoryBuffer.h>
#include <memory>
#include <string>
#include <vector>
#include <zlib.h>

namespace {

struct Stream {
  llvm::StringRef input; // the zlib stream, after the compression header
  std::vector<char> out;
};

bool zlibInflate(const Stream& stream, char* out) {
  z_stream z{};
  if (inflateInit(&z) != Z_OK)
    return false;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(stream.input.data()));
  z.avail_in = static_cast<uInt>(stream.input.size());
  z.next_out = reinterpret_cast<Bytef*>(out);
  z.avail_out = static_cast<uInt>(stream.out.size());
  int result = inflate(&z, Z_FINISH);
  inflateEnd(&z);
  return result == Z_STREAM_END;
}

template <class Decoder>
double timeAll(std::vector<Stream>& streams, int runs, bool fresh, Decoder decode) {
  double best = 1e30;
  for (int run = 0; run < runs; ++run) {
    auto start = std::chrono::steady_clock::now();
    for (Stream& stream : streams)
      if (!decode(stream, fresh)) {
        std::fprintf(stderr, "inflate_sections: a section does not inflate\n");
        std::exit(1);
      }
    std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    best = std::min(best, took.count());
  }
  return best;
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: inflate_sections FILE [RUNS]\n");
    return 2;
  }
  int runs = argc > 2 ? std::atoi(argv[2]) : 3;
  auto buffer = llvm::MemoryBuffer::getFile(argv[1]);
  if (!buffer) {
    std::fprintf(stderr, "inflate_sections: %s: %s\n", argv[1],
                 buffer.getError().message().c_str());
    return 1;
  }
  auto object = llvm::object::ObjectFile::createObjectFile((*buffer)->getMemBufferRef());
  auto* elf = object ? llvm::dyn_cast<llvm::object::ELF64LEObjectFile>(object->get()) : nullptr;
  if (!elf) {
    if (!object)
      llvm::consumeError(object.takeError());
    std::fprintf(stderr, "inflate_sections: %s: not a 64-bit little-endian ELF file\n", argv[1]);
    return 1;
  }
  std::vector<Stream> streams;
  uint64_t total = 0;
  for (const auto& section : elf->sections()) {
    auto header = elf->getSection(section.getRawDataRefImpl());
    if (!(header->sh_flags & llvm::ELF::SHF_COMPRESSED))
      continue;
    auto contents = section.getContents();
    if (!contents || contents->size() < sizeof(llvm::ELF::Elf64_Chdr))
      continue;
    llvm::ELF::Elf64_Chdr chdr;
    std::memcpy(&chdr, contents->data(), sizeof chdr);
    if (chdr.ch_type != llvm::ELF::ELFCOMPRESS_ZLIB)
      continue;
    Stream stream{contents->drop_front(sizeof chdr), std::vector<char>(chdr.ch_size, 1)};
    total += chdr.ch_size;
    streams.push_back(std::move(stream));
  }
  // Both decoders read the input from memory already paged in.
  volatile char sink = 0;
  for (const Stream& stream : streams)
    for (size_t k = 0; k < stream.input.size(); k += 4096)
      sink = sink + stream.input[k];
  // A fresh buffer: new[] of this size is a new mapping, not yet faulted in.
  auto target = [](Stream& s, bool fresh, std::unique_ptr<char[]>& owned) {
    if (!fresh)
      return s.out.data();
    owned.reset(new char[s.out.size()]);
    return owned.get();
  };
  auto zlib = [&](Stream& s, bool fresh) {
    std::unique_ptr<char[]> owned;
    return zlibInflate(s, target(s, fresh, owned));
  };
  auto isal = [&](Stream& s, bool fresh) {
    std::unique_ptr<char[]> owned;
    return dumpsyms::isalInflateZlib(s.input, {target(s, fresh, owned), s.out.size()},
                                     [](uint64_t, uint64_t) {});
  };
  for (bool fresh : {true, false}) {
    const char* kind = fresh ? "fresh" : "warm";
    std::printf("zlib %s %.3f %llu\n", kind, timeAll(streams, runs, fresh, zlib),
                (unsigned long long)total);
    std::printf("isal %s %.3f %llu\n", kind, timeAll(streams, runs, fresh, isal),
                (unsigned long long)total);
  }
  return 0;
}
