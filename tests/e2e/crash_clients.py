"""What crash clients send, byte for byte, for the crash inbox's tests
(docs in ../shared/docs/CRASH_FACTS.md):

- breakpad_upload: Breakpad's `minidump_upload -p PROD -v VER DUMP URL`
  (libcurl's form: text parts without a Content-Type, the dump as
  upload_file_minidump with application/octet-stream, a Content-Length);
- crashpad_upload: Crashpad's handler (its HTTPMultipartBuilder's boundary,
  annotations as text parts, guid, the dump as <uuid>.dmp, attachments as
  further file parts, ?product=&version=&guid= on the URL, the body
  gzip-coded and sent chunked without a Content-Length);
- backtrace_upload: a logged backtrace posted as a `backtrace` text part;
- report_upload: an OpenSync-style JSON report.
Each returns (status, body text)."""
import gzip
import http.client
import json
import random
import string
import urllib.parse
import uuid


def _post(host, port, path, body, headers, chunked=False, timeout=60):
    conn = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        if chunked:
            pieces = [body[i:i + 8192] for i in range(0, len(body), 8192)] or [b""]
            conn.request("POST", path, body=iter(pieces), headers=headers, encode_chunked=True)
        else:
            conn.request("POST", path, body=body, headers=headers)
        response = conn.getresponse()
        return response.status, response.read().decode("utf-8", "replace")
    finally:
        conn.close()


def _text_part(boundary, name, value, content_type=None):
    head = f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n'
    if content_type:
        head += f"Content-Type: {content_type}\r\n"
    return (head + "\r\n").encode() + value.encode() + b"\r\n"


def _file_part(boundary, name, filename, data):
    return (f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
            f"Content-Type: application/octet-stream\r\n\r\n").encode() + data + b"\r\n"


def breakpad_body(fields, dump, dump_name="upload.dmp", boundary=None):
    boundary = boundary or "------------------------" + "".join(random.choice("0123456789abcdef") for _ in range(16))
    body = b"".join(_text_part(boundary, k, v) for k, v in fields.items())
    body += _file_part(boundary, "upload_file_minidump", dump_name, dump)
    body += f"--{boundary}--\r\n".encode()
    return boundary, body


def breakpad_upload(host, port, dump, prod, ver, extra=None, path="/submit"):
    fields = {"prod": prod, "ver": ver, **(extra or {})}
    boundary, body = breakpad_body(fields, dump)
    headers = {"Content-Type": f"multipart/form-data; boundary={boundary}", "Accept": "*/*",
               "Content-Length": str(len(body))}
    return _post(host, port, path, body, headers)


def crashpad_body(annotations, dump, attachments=(), guid=None):
    boundary = "---MultipartBoundary-" + "".join(random.choice(string.ascii_letters + string.digits)
                                                  for _ in range(32)) + "---"
    body = b""
    for key, value in annotations.items():
        body += _text_part(boundary, key, value)
    body += _text_part(boundary, "guid", guid)
    for name, filename, data in attachments:
        body += _file_part(boundary, name, filename, data)
    body += _file_part(boundary, "upload_file_minidump", f"{uuid.uuid4()}.dmp", dump)
    body += f"--{boundary}--\r\n".encode()
    return boundary, body


def crashpad_upload(host, port, dump, product, version, annotations=None, attachments=(), guid=None,
                    compress=True, path="/submit", raw_body=None):
    guid = guid or uuid.uuid4().hex
    annotations = {"prod": product, "ver": version, "list_annotations": "", **(annotations or {})}
    boundary, body = crashpad_body(annotations, dump, attachments, guid)
    if raw_body is not None:
        body = raw_body
    query = urllib.parse.urlencode({"product": product, "version": version, "guid": guid})
    headers = {"User-Agent": "Crashpad/0.8.0 libcurl/7.88.1",
               "Accept-Encoding": "deflate, gzip, br, zstd",
               "Content-Type": f"multipart/form-data; boundary={boundary}"}
    if compress:
        headers["Content-Encoding"] = "gzip"
        body = gzip.compress(body) if raw_body is None else body
    return _post(host, port, f"{path}?{query}", body, headers, chunked=True)


def backtrace_upload(host, port, text, prod, ver, reason=None):
    fields = {"prod": prod, "ver": ver, "backtrace": text}
    if reason:
        fields["reason"] = reason
    boundary = "------------------------" + "".join(random.choice("0123456789abcdef") for _ in range(16))
    body = b"".join(_text_part(boundary, k, v) for k, v in fields.items()) + f"--{boundary}--\r\n".encode()
    return _post(host, port, "/submit", body, {"Content-Type": f"multipart/form-data; boundary={boundary}"})


def report_upload(host, port, report):
    body = json.dumps(report).encode()
    return _post(host, port, "/submit/report", body, {"Content-Type": "application/json"})
