#include "server/crashes/multipart_reader.h"

#include <cctype>
#include <llvm/ADT/SmallVector.h>
#include <llvm/ADT/StringExtras.h>

namespace dumpsyms {

char MultipartError::ID = 0;

void MultipartError::log(llvm::raw_ostream& out) const {
  out << "malformed multipart body (" << reason_ << ")";
  if (!detail_.empty())
    out << ": " << detail_;
}

std::error_code MultipartError::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

namespace {

llvm::Error malformed(const char* reason, std::string detail) {
  return llvm::make_error<MultipartError>(reason, std::move(detail));
}

// A header's parameter (`name="x"`, `name=x`), quotes and backslash
// escapes taken off; none when absent.
std::optional<std::string> headerParameter(llvm::StringRef value, llvm::StringRef wanted) {
  size_t at = value.find(';');
  while (at != llvm::StringRef::npos) {
    llvm::StringRef rest = value.drop_front(at + 1).ltrim(" \t");
    size_t equals = rest.find('=');
    if (equals == llvm::StringRef::npos)
      return std::nullopt;
    llvm::StringRef key = rest.take_front(equals).trim(" \t");
    llvm::StringRef tail = rest.drop_front(equals + 1).ltrim(" \t");
    std::string text;
    size_t consumed = 0;
    if (tail.starts_with("\"")) {
      size_t i = 1;
      for (; i < tail.size() && tail[i] != '"'; ++i) {
        if (tail[i] == '\\' && i + 1 < tail.size())
          ++i;
        text += tail[i];
      }
      consumed = i < tail.size() ? i + 1 : i;
    } else {
      consumed = std::min(tail.find(';'), tail.size());
      text = tail.take_front(consumed).rtrim(" \t").str();
    }
    if (key.equals_insensitive(wanted))
      return text;
    llvm::StringRef after = tail.drop_front(consumed);
    size_t next = after.find(';');
    if (next == llvm::StringRef::npos)
      return std::nullopt;
    at = static_cast<size_t>(after.data() - value.data()) + next;
  }
  return std::nullopt;
}

} // namespace

std::optional<std::string> multipartBoundary(const std::string& content_type) {
  llvm::StringRef type(content_type);
  if (!type.trim().lower().starts_with("multipart/form-data"))
    return std::nullopt;
  auto boundary = headerParameter(type, "boundary");
  if (!boundary || boundary->empty() || boundary->size() > limits::kMaxMultipartBoundary)
    return std::nullopt;
  for (char c : *boundary)
    if (c == '\r' || c == '\n')
      return std::nullopt;
  return boundary;
}

MultipartReader::MultipartReader(const std::string& boundary, MultipartHandler& handler)
    : delimiter_("\r\n--" + boundary), handler_(handler) {
  // The first delimiter may open the body: a CRLF before it makes every
  // delimiter the same search.
  buffer_ = "\r\n";
}

llvm::Error MultipartReader::feed(llvm::StringRef bytes) {
  buffer_.append(bytes.data(), bytes.size());
  for (bool progressed = true; progressed;) {
    progressed = false;
    if (llvm::Error error = step(progressed))
      return error;
  }
  return llvm::Error::success();
}

llvm::Error MultipartReader::finish() {
  if (llvm::Error error = feed(""))
    return error;
  if (state_ == State::Done)
    return llvm::Error::success();
  if (state_ == State::Preamble)
    return malformed("no_boundary", "no part delimiter in the body");
  return malformed("truncated", "the body ends before its closing delimiter");
}

llvm::Error MultipartReader::step(bool& progressed) {
  switch (state_) {
  case State::Preamble: {
    size_t found = buffer_.find(delimiter_);
    if (found == std::string::npos) {
      if (buffer_.size() > limits::kMaxMultipartPreamble)
        return malformed("invalid_payload_structure",
                         "no part delimiter in the body's first " +
                             std::to_string(limits::kMaxMultipartPreamble) + " bytes");
      return llvm::Error::success();
    }
    buffer_.erase(0, found + delimiter_.size());
    state_ = State::AfterDelimiter;
    progressed = true;
    return llvm::Error::success();
  }
  case State::AfterDelimiter: {
    if (buffer_.size() < 2)
      return llvm::Error::success();
    if (buffer_.compare(0, 2, "--") == 0) {
      if (parts_ == 0)
        return malformed("invalid_payload_structure", "the form has no parts");
      state_ = State::Done;
      buffer_.clear();
      return llvm::Error::success();
    }
    // Transport padding (RFC 2046: spaces and tabs) before the CRLF.
    size_t end = buffer_.find_first_not_of(" \t");
    if (end == std::string::npos) {
      if (buffer_.size() > 256)
        return malformed("invalid_payload_structure", "no line end after a delimiter");
      return llvm::Error::success();
    }
    if (buffer_.size() < end + 2)
      return llvm::Error::success();
    if (buffer_.compare(end, 2, "\r\n") != 0)
      return malformed("invalid_payload_structure", "a delimiter is followed by other bytes");
    buffer_.erase(0, end + 2);
    state_ = State::Headers;
    progressed = true;
    return llvm::Error::success();
  }
  case State::Headers: {
    size_t end = buffer_.compare(0, 2, "\r\n") == 0 ? 0 : buffer_.find("\r\n\r\n");
    if (end == std::string::npos) {
      if (buffer_.size() > limits::kMaxPartHeaders)
        return malformed("bad_part_headers", "a part's headers are over " +
                                                 std::to_string(limits::kMaxPartHeaders) +
                                                 " bytes");
      return llvm::Error::success();
    }
    if (llvm::Error error = parseHeaders(llvm::StringRef(buffer_).take_front(end)))
      return error;
    buffer_.erase(0, end + (end == 0 ? 2 : 4));
    ++parts_;
    state_ = State::Body;
    progressed = true;
    return llvm::Error::success();
  }
  case State::Body: {
    size_t found = buffer_.find(delimiter_);
    if (found == std::string::npos) {
      // All but what could be the start of a delimiter.
      size_t keep = delimiter_.size() - 1;
      if (buffer_.size() > keep) {
        size_t give = buffer_.size() - keep;
        if (llvm::Error error = handler_.partData(llvm::StringRef(buffer_).take_front(give)))
          return error;
        buffer_.erase(0, give);
      }
      return llvm::Error::success();
    }
    if (found > 0)
      if (llvm::Error error = handler_.partData(llvm::StringRef(buffer_).take_front(found)))
        return error;
    if (llvm::Error error = handler_.endPart())
      return error;
    buffer_.erase(0, found + delimiter_.size());
    state_ = State::AfterDelimiter;
    progressed = true;
    return llvm::Error::success();
  }
  case State::Done:
    buffer_.clear(); // the epilogue: ignored
    return llvm::Error::success();
  }
  return llvm::Error::success();
}

llvm::Error MultipartReader::parseHeaders(llvm::StringRef block) {
  PartHeaders headers;
  bool disposition = false;
  llvm::SmallVector<llvm::StringRef, 8> lines;
  block.split(lines, "\r\n");
  std::string name, value;
  auto take = [&]() -> llvm::Error {
    if (name.empty())
      return llvm::Error::success();
    llvm::StringRef lower_name(name);
    if (lower_name.equals_insensitive("content-disposition")) {
      llvm::StringRef v(value);
      if (!v.trim().lower().starts_with("form-data"))
        return malformed("bad_part_headers", "a part is not form-data");
      auto field = headerParameter(v, "name");
      if (!field)
        return malformed("bad_part_headers", "a part has no name");
      headers.name = *field;
      headers.filename = headerParameter(v, "filename");
      disposition = true;
    } else if (lower_name.equals_insensitive("content-type")) {
      headers.content_type = llvm::StringRef(value).trim().str();
    }
    name.clear();
    value.clear();
    return llvm::Error::success();
  };
  for (llvm::StringRef line : lines) {
    if (line.empty())
      continue;
    if ((line[0] == ' ' || line[0] == '\t') && !name.empty()) { // folded
      value += " " + line.trim().str();
      continue;
    }
    if (llvm::Error error = take())
      return error;
    size_t colon = line.find(':');
    if (colon == llvm::StringRef::npos || colon == 0)
      return malformed("bad_part_headers", "a part's header line has no name");
    name = line.take_front(colon).trim().str();
    value = line.drop_front(colon + 1).trim().str();
  }
  if (llvm::Error error = take())
    return error;
  if (!disposition)
    return malformed("bad_part_headers", "a part has no Content-Disposition");
  return handler_.beginPart(headers);
}

} // namespace dumpsyms
