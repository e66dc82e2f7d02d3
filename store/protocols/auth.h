// How an upload client names its token, in the three spellings servers
// read: Tecken's header, a bearer token, and the `?key=` argument Breakpad's
// sym_upload (v1 and sym-upload-v2) can only send.
#pragma once

namespace dumpsyms::protocol_auth {

inline constexpr const char* kAuthTokenHeader = "Auth-Token";
inline constexpr const char* kAuthorizationHeader = "Authorization";
inline constexpr const char* kBearerPrefix = "Bearer ";
inline constexpr const char* kKeyArgument = "key";

} // namespace dumpsyms::protocol_auth
