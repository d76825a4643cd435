#ifndef GATHER_CLIBWEBSOCKETS_SHIM_H
#define GATHER_CLIBWEBSOCKETS_SHIM_H

// libwebsockets 4.1.6 for Swift. Function-like macros and macros whose value is an
// expression do not import into Swift, so each one we need has a static inline twin here.

#include <libwebsockets.h>

/// Headroom lws_write needs in front of every payload.
static inline size_t gather_lws_pre(void) { return LWS_PRE; }

/// Offers plain HTTP on the TLS port only when asked; we never set it, but tests check it exists.
static inline unsigned long long gather_lws_option_allow_non_ssl(void) {
    return (unsigned long long)LWS_SERVER_OPTION_ALLOW_NON_SSL_ON_SSL_PORT;
}

static inline unsigned long long gather_lws_option_do_ssl_global_init(void) {
    return (unsigned long long)LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
}

static inline unsigned long long gather_lws_option_validate_utf8(void) {
    return (unsigned long long)LWS_SERVER_OPTION_VALIDATE_UTF8;
}

static inline unsigned long long gather_lws_option_disable_ipv6(void) {
    return (unsigned long long)LWS_SERVER_OPTION_DISABLE_IPV6;
}

static inline unsigned long long gather_lws_option_explicit_vhosts(void) {
    return (unsigned long long)LWS_SERVER_OPTION_EXPLICIT_VHOSTS;
}

/// A vhost that cannot bind fails at creation instead of retrying later.
static inline unsigned long long gather_lws_option_fail_upon_unable_to_bind(void) {
    return (unsigned long long)LWS_SERVER_OPTION_FAIL_UPON_UNABLE_TO_BIND;
}

/// The libev event loop (epoll) instead of poll(): a client holding 10,000 sockets should not
/// scan all of them on every wake-up. Needs the libwebsockets-evlib-ev plugin at run time.
static inline unsigned long long gather_lws_option_libev(void) {
    return (unsigned long long)LWS_SERVER_OPTION_LIBEV;
}

/// Route lws's own log lines (a level mask) to a Swift emitter.
static inline void gather_lws_set_log(int levels, void (*emit)(int level, const char *line)) {
    lws_set_log_level(levels, emit);
}

static inline int gather_lws_log_err(void) { return LLL_ERR; }
static inline int gather_lws_log_warn(void) { return LLL_WARN; }
static inline int gather_lws_log_notice(void) { return LLL_NOTICE; }

#endif
