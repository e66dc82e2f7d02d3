#include "store/symbol_servers/windows_symbol_fetch.h"

#include "common/files/atomic_file.h"
#include "common/http/http_answers.h"
#include "common/limits/input_limits.h"
#include "store/symbol_servers/cab_archive.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <unistd.h>

namespace dumpsyms {

namespace {

bool isUrl(const std::string& location) {
  return location.rfind("http://", 0) == 0 || location.rfind("https://", 0) == 0;
}

// "app.pdb" -> "app.pd_": the name a store gives the compressed file.
std::string compressedName(const std::string& name) {
  return name.empty() ? name : name.substr(0, name.size() - 1) + "_";
}

std::string joinPath(const std::string& a, const std::string& b) {
  llvm::SmallString<256> path(a);
  llvm::sys::path::append(path, b);
  return std::string(path);
}

bool isFile(const std::string& path) {
  return llvm::sys::fs::is_regular_file(path);
}

// Whether a name is safe as one path component of a store.
bool usableComponent(const std::string& text) {
  return !text.empty() && text != "." && text != ".." && text.find('/') == std::string::npos &&
         text.find('\\') == std::string::npos && text.find('\0') == std::string::npos;
}

// A temporary for `to`, its directories made.
llvm::Expected<AtomicFile> atomicFileIn(const std::string& to) {
  if (std::error_code error = llvm::sys::fs::create_directories(llvm::sys::path::parent_path(to)))
    return llvm::createStringError(error, "%s: cannot create its directory: %s", to.c_str(),
                                   error.message().c_str());
  return AtomicFile::create(to);
}

// Copies `from` into `to` (directories made), atomically.
llvm::Error copyInto(const std::string& from, const std::string& to) {
  auto out = atomicFileIn(to);
  if (!out)
    return out.takeError();
  std::ifstream in(from, std::ios::binary);
  if (!in)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s: cannot be read",
                                   from.c_str());
  std::vector<char> buffer(1 << 20);
  while (in) {
    in.read(buffer.data(), std::streamsize(buffer.size()));
    std::streamsize got = in.gcount();
    for (std::streamsize written = 0; written < got;) {
      ssize_t n = ::write(out->fd(), buffer.data() + written, size_t(got - written));
      if (n < 0)
        return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s: cannot write: %s",
                                       to.c_str(), std::strerror(errno));
      written += n;
    }
  }
  return out->commit();
}

// Expands the cabinet `cab` holding `name` into `to`, atomically.
llvm::Error expandInto(const std::string& cab, const std::string& name, const std::string& to) {
  auto out = atomicFileIn(to);
  if (!out)
    return out.takeError();
  // libmspack writes by name: into the temporary's own path.
  std::string temporary = "/proc/self/fd/" + std::to_string(out->fd());
  if (llvm::Error error = expandCabFile(cab, name, temporary, limits::kMaxFetchedSymbolFile))
    return error;
  return out->commit();
}

} // namespace

WindowsSymbolFetcher::WindowsSymbolFetcher(WindowsSymbolFetchOptions options,
                                           std::function<void(const std::string&)> warn)
    : options_(std::move(options)), failed_(options_.sources.size(), false),
      warn_(std::move(warn)) {}

llvm::Expected<std::string>
WindowsSymbolFetcher::find(const WindowsFileKey& file,
                           const std::function<bool(const std::string&)>& wanted) {
  if (!usableComponent(file.name) || !usableComponent(file.key))
    return notFetched("'" + file.name + "' / '" + file.key +
                      "' cannot be looked up in a symbol store");
  std::string relative = file.name + "/" + file.key + "/" + file.name;
  std::vector<std::string> looked;
  for (size_t i = 0; i < options_.sources.size(); ++i) {
    const WindowsSymbolSource& source = options_.sources[i];
    // The downstream stores first.
    for (const std::string& cache : source.caches) {
      std::string path = joinPath(cache, relative);
      if (isFile(path) && wanted(path))
        return path;
    }
    if (failed_[i])
      continue;
    std::string found, problem;
    std::string cache = source.caches.empty() ? "" : source.caches.front();
    Answer answer = source.server && isUrl(source.location)
                        ? fromServer(i, cache, file, wanted, found, problem)
                        : fromDirectory(source.location, source.server ? cache : "", file, wanted,
                                        found, problem);
    if (answer == Answer::Found)
      return found;
    looked.push_back(source.location + (problem.empty() ? "" : " (" + problem + ")"));
  }
  std::string why = file.name + " " + file.key + " is not on the symbol path";
  if (!looked.empty()) {
    why += " (looked at: ";
    for (size_t i = 0; i < looked.size(); ++i)
      why += (i ? ", " : "") + looked[i];
    why += ")";
  }
  return notFetched(std::move(why));
}

WindowsSymbolFetcher::Answer
WindowsSymbolFetcher::fromDirectory(const std::string& dir, const std::string& cache,
                                    const WindowsFileKey& file,
                                    const std::function<bool(const std::string&)>& wanted,
                                    std::string& found, std::string& problem) {
  std::string keyed = joinPath(joinPath(dir, file.name), file.key);
  std::string target =
      cache.empty() ? "" : joinPath(cache, file.name + "/" + file.key + "/" + file.name);
  std::string plain = joinPath(keyed, file.name);
  if (isFile(plain) && wanted(plain)) {
    if (target.empty()) {
      found = plain;
      return Answer::Found;
    }
    if (llvm::Error error = copyInto(plain, target)) {
      // (the store cannot be filled: the file is still there to read)
      warn_(llvm::toString(std::move(error)));
      found = plain;
      return Answer::Found;
    }
    found = target;
    return Answer::Found;
  }
  std::string compressed = joinPath(keyed, compressedName(file.name));
  if (isFile(compressed) && !target.empty()) {
    if (llvm::Error error = expandInto(compressed, file.name, target)) {
      problem = llvm::toString(std::move(error));
      warn_(problem);
    } else if (wanted(target)) {
      found = target;
      return Answer::Found;
    }
  }
  std::string pointer_file = joinPath(keyed, "file.ptr");
  if (isFile(pointer_file)) {
    std::ifstream in(pointer_file);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    FilePointer pointer = parseFilePointer(text.substr(0, limits::kMaxAnswerBody));
    if (pointer.path && isFile(*pointer.path) && wanted(*pointer.path)) {
      found = *pointer.path;
      return Answer::Found;
    }
    problem = pointer.path ? "file.ptr names " + *pointer.path + ", which is not the file"
                           : "file.ptr: " + pointer.message;
  }
  if (!cache.empty() || !isFile(joinPath(dir, file.name)))
    return Answer::NotThere;
  // A plain directory may hold the file itself.
  std::string flat = joinPath(dir, file.name);
  if (wanted(flat)) {
    found = flat;
    return Answer::Found;
  }
  return Answer::NotThere;
}

WindowsSymbolFetcher::Answer WindowsSymbolFetcher::download(size_t source, const std::string& url,
                                                            const std::string& to,
                                                            std::string* small_body,
                                                            std::string& problem) {
  std::optional<AtomicFile> out;
  std::FILE* stream = nullptr;
  if (!small_body) {
    if (std::error_code error =
            llvm::sys::fs::create_directories(llvm::sys::path::parent_path(to))) {
      problem = to + ": cannot create its directory: " + error.message();
      return Answer::Failed;
    }
    auto file = AtomicFile::create(to);
    if (!file) {
      problem = llvm::toString(file.takeError());
      return Answer::Failed;
    }
    out.emplace(std::move(*file));
    stream = fdopen(dup(out->fd()), "w+b");
    if (!stream) {
      problem = to + ": cannot write it: " + std::strerror(errno);
      return Answer::Failed;
    }
  }
  HttpRequest request;
  request.url = url;
  request.follow_redirects = true;
  request.download = stream;
  request.download_limit = limits::kMaxFetchedSymbolFile;
  request.timeout_seconds = options_.timeout_seconds;
  request.answer_seconds = 0xffffffffu; // a large PDB over a slow link takes long
  unsigned tries = 0;
  HttpResponse response = performWithRetries(request, options_.retry, &tries);
  if (stream)
    std::fclose(stream);
  requests_ += tries;
  if (response.status == 404 || response.status == 410 || response.status == 403)
    return Answer::NotThere;
  if (response.status >= 200 && response.status <= 299) {
    if (response.download_over_limit || response.body_over_limit) {
      problem = url + ": the answer is over the limit of its size";
      return Answer::NotThere;
    }
    if (small_body) {
      *small_body = response.body;
      return Answer::Found;
    }
    if (llvm::Error error = out->commit()) {
      problem = llvm::toString(std::move(error));
      return Answer::Failed;
    }
    return Answer::Found;
  }
  failed_[source] = true;
  problem = describeFailure(options_.sources[source].location, response);
  if (tries > 1)
    problem += " (after " + std::to_string(tries) + " tries)";
  warn_("symbol server " + problem + ": going on without it");
  return Answer::Failed;
}

WindowsSymbolFetcher::Answer
WindowsSymbolFetcher::fromServer(size_t source, const std::string& cache,
                                 const WindowsFileKey& file,
                                 const std::function<bool(const std::string&)>& wanted,
                                 std::string& found, std::string& problem) {
  std::string base = options_.sources[source].location;
  while (!base.empty() && base.back() == '/')
    base.pop_back();
  std::string keyed = file.name + "/" + file.key + "/";
  std::string target = joinPath(cache, keyed + file.name);

  Answer answer =
      download(source, base + "/" + urlEncodePath(keyed + file.name), target, nullptr, problem);
  if (answer == Answer::Failed)
    return answer;
  if (answer == Answer::Found) {
    if (wanted(target)) {
      found = target;
      return Answer::Found;
    }
    problem = "the file it sent is not " + file.name + " " + file.key;
    warn_(base + ": " + problem);
    std::remove(target.c_str());
    return Answer::NotThere;
  }

  std::string compressed = joinPath(cache, keyed + compressedName(file.name));
  answer = download(source, base + "/" + urlEncodePath(keyed + compressedName(file.name)),
                    compressed, nullptr, problem);
  if (answer == Answer::Failed)
    return answer;
  if (answer == Answer::Found) {
    llvm::Error error = expandInto(compressed, file.name, target);
    std::remove(compressed.c_str());
    if (error) {
      problem = llvm::toString(std::move(error));
      warn_(base + ": " + problem);
      return Answer::NotThere;
    }
    if (wanted(target)) {
      found = target;
      return Answer::Found;
    }
    std::remove(target.c_str());
    problem = "the cabinet it sent does not hold " + file.name + " " + file.key;
    warn_(base + ": " + problem);
    return Answer::NotThere;
  }

  std::string body;
  answer = download(source, base + "/" + urlEncodePath(keyed + "file.ptr"), "", &body, problem);
  if (answer != Answer::Found)
    return answer;
  FilePointer pointer = parseFilePointer(body);
  if (!pointer.path) {
    problem = "file.ptr: " + pointer.message;
    warn_(base + "/" + keyed + problem);
    return Answer::NotThere;
  }
  std::string where = *pointer.path;
  if (isUrl(where)) {
    answer = download(source, where, target, nullptr, problem);
    if (answer != Answer::Found)
      return answer;
    where = target;
  } else if (!isFile(where)) {
    problem = "file.ptr names " + where + ", which is not here";
    return Answer::NotThere;
  } else if (looksLikeCab(where)) {
    if (llvm::Error error = expandInto(where, file.name, target)) {
      problem = llvm::toString(std::move(error));
      return Answer::NotThere;
    }
    where = target;
  } else if (wanted(where)) {
    // Kept in the downstream store too, as symsrv does: the next run asks
    // no server.
    if (llvm::Error error = copyInto(where, target))
      warn_(llvm::toString(std::move(error)));
    else
      where = target;
    found = where;
    return Answer::Found;
  }
  if (!wanted(where)) {
    problem = "file.ptr names " + where + ", which is not " + file.name + " " + file.key;
    return Answer::NotThere;
  }
  found = where;
  return Answer::Found;
}

} // namespace dumpsyms
