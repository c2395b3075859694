// Imports OpenSSL's libssl into Swift: TLS for webhook deliveries (BraceletSync's own HTTP client).
// OpenSSL spells several settings as macros, which Swift cannot call: the inline functions below
// are those macros as functions.
#pragma once
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

/// SSL_set_tlsext_host_name: the name sent in the handshake (SNI).
static inline long bracelet_tls_set_server_name(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}

/// SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION): nothing older than TLS 1.2.
static inline int bracelet_tls_require_tls12(SSL_CTX *ctx) {
    return (int)SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
}
