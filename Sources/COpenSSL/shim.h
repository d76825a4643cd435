#ifndef GATHER_COPENSSL_SHIM_H
#define GATHER_COPENSSL_SHIM_H

#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

// Macros that do not import into Swift.

static inline long gather_ssl_ctx_set_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_set_mode(ctx, mode); }
static inline long gather_ssl_mode_release_buffers(void) { return SSL_MODE_RELEASE_BUFFERS; }
/// No server-side session cache: every handshake's SSL_SESSION would otherwise stay in memory
/// (up to 20,480 of them).
static inline long gather_ssl_ctx_disable_session_cache(SSL_CTX *ctx) {
    return SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
}
static inline int gather_ssl_ctx_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}
static inline long gather_ssl_ctx_session_cache_mode(SSL_CTX *ctx) { return SSL_CTX_get_session_cache_mode(ctx); }
static inline long gather_ssl_sess_cache_off(void) { return SSL_SESS_CACHE_OFF; }
static inline int gather_ssl_ctx_min_proto_version(SSL_CTX *ctx) { return (int)SSL_CTX_get_min_proto_version(ctx); }
static inline int gather_tls1_2_version(void) { return TLS1_2_VERSION; }
static inline int gather_tls1_3_version(void) { return TLS1_3_VERSION; }

static inline int gather_mbstring_utf8(void) { return MBSTRING_UTF8; }
/// The bytes a memory BIO holds (BIO_get_mem_data is a macro).
static inline long gather_bio_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }

#endif
