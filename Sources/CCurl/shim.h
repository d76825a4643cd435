#ifndef GATHER_CCURL_SHIM_H
#define GATHER_CCURL_SHIM_H
// libcurl (Debian's libcurl4-openssl-dev), used by the club to send mail over SMTP with STARTTLS
// or smtps://. `curl_easy_setopt` is variadic, which Swift cannot call: one typed wrapper per kind
// of value, each returning curl's code so the caller checks every one.
#include <curl/curl.h>

typedef size_t (*gather_curl_read_callback)(char *buffer, size_t size, size_t count, void *context);

static inline CURLcode gather_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode gather_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode gather_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode gather_curl_set_list(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode gather_curl_set_read_function(CURL *handle, gather_curl_read_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_READFUNCTION, callback);
}
#endif
