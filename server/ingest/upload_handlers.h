// One function per upload protocol, answering a request whose body has
// arrived (upload_service.cpp routes to them).
#pragma once

#include "server/ingest/symbol_publisher.h"

namespace dumpsyms {

// PUT /<debug_file>/<DEBUG_ID>/<name>.sym: 201, 200 (same bytes), 409.
ServerResponse handleStorePut(SymbolPublisher& publisher, ServerRequest& request);
// PUT of a file `symstore add --keep-binaries` keeps (not a .sym): a kept
// binary beside its module's .sym, or a `.build-id` entry.
ServerResponse handleKeptFilePut(SymbolPublisher& publisher, ServerRequest& request,
                                 const std::string& path);
// Breakpad v1's form at /symupload or /upload/: 200 (stored or same), 409.
ServerResponse handleBreakpadV1(SymbolPublisher& publisher, ServerRequest& request);
// Tecken's zip at /upload/: 201 with Tecken's JSON, nothing published on any refusal.
ServerResponse handleTecken(SymbolPublisher& publisher, ServerRequest& request);
// sym-upload-v2's four steps.
ServerResponse handleV2CheckStatus(SymbolPublisher& publisher, ServerRequest& request);
ServerResponse handleV2Create(SymbolPublisher& publisher, ServerRequest& request);
ServerResponse handleV2Put(SymbolPublisher& publisher, ServerRequest& request);
ServerResponse handleV2Complete(SymbolPublisher& publisher, ServerRequest& request);

// The request's body as a spooled file ready to check: inflated when sent
// with Content-Encoding: gzip (415 for another coding).
std::variant<SpoolFile, UploadRefusal> spoolBody(SymbolPublisher& publisher,
                                                 const ServerRequest& request);

// Publishes a checked file as a PUT answers it: 201 (stored), 200 (the
// same bytes were there), or the refusal (409 for other bytes).
ServerResponse publishAsPutAnswers(SymbolPublisher& publisher, CheckedSymbolFile& file);

} // namespace dumpsyms
