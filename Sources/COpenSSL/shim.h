#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>
#include <openssl/obj_mac.h>
#include <openssl/param_build.h>
#include <openssl/params.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

/* Macros and variadic calls Swift cannot import, wrapped as functions. */
static inline long copenssl_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return SSL_CTX_set_min_proto_version(ctx, version);
}
static inline long copenssl_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}
static inline int copenssl_EVP_CTRL_GCM_SET_IVLEN(void) { return EVP_CTRL_GCM_SET_IVLEN; }
static inline int copenssl_EVP_CTRL_GCM_GET_TAG(void) { return EVP_CTRL_GCM_GET_TAG; }
static inline int copenssl_EVP_CTRL_GCM_SET_TAG(void) { return EVP_CTRL_GCM_SET_TAG; }
/* OSSL_PARAM_BLD keeps pointers to keys and buffers until OSSL_PARAM_BLD_to_param: static strings. */
static inline const char *copenssl_PKEY_PARAM_GROUP_NAME(void) { return OSSL_PKEY_PARAM_GROUP_NAME; }
static inline const char *copenssl_PKEY_PARAM_PUB_KEY(void) { return OSSL_PKEY_PARAM_PUB_KEY; }
static inline const char *copenssl_PKEY_PARAM_PRIV_KEY(void) { return OSSL_PKEY_PARAM_PRIV_KEY; }
static inline const char *copenssl_MAC_PARAM_DIGEST(void) { return OSSL_MAC_PARAM_DIGEST; }
static inline int copenssl_EVP_PKEY_PUBLIC_KEY(void) { return EVP_PKEY_PUBLIC_KEY; }
static inline int copenssl_EVP_PKEY_KEYPAIR(void) { return EVP_PKEY_KEYPAIR; }
static inline int copenssl_EVP_CTRL_AEAD_SET_IVLEN(void) { return EVP_CTRL_AEAD_SET_IVLEN; }
static inline int copenssl_EVP_CTRL_AEAD_GET_TAG(void) { return EVP_CTRL_AEAD_GET_TAG; }
static inline int copenssl_EVP_CTRL_AEAD_SET_TAG(void) { return EVP_CTRL_AEAD_SET_TAG; }
/* Server-side TLS: ALPN selection of http/1.1 (RFC 7301 §3.2) and hardening options. */
static inline int copenssl_alpn_select_http11(SSL *ssl, const unsigned char **out, unsigned char *outlen,
                                              const unsigned char *in, unsigned int inlen, void *arg) {
    static const unsigned char server[] = { 8, 'h', 't', 't', 'p', '/', '1', '.', '1' };
    unsigned char *selected = NULL;
    (void)ssl; (void)arg;
    if (SSL_select_next_proto(&selected, outlen, server, sizeof server, in, inlen) != OPENSSL_NPN_NEGOTIATED) {
        return SSL_TLSEXT_ERR_NOACK;
    }
    *out = selected;
    return SSL_TLSEXT_ERR_OK;
}
static inline void copenssl_SSL_CTX_configure_server(SSL_CTX *ctx) {
    SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION | SSL_OP_CIPHER_SERVER_PREFERENCE);
    SSL_CTX_set_alpn_select_cb(ctx, copenssl_alpn_select_http11, NULL);
}
static inline int copenssl_SSL_FILETYPE_PEM(void) { return SSL_FILETYPE_PEM; }
/* A private key from PEM (PKCS#8, SEC1 or PKCS#1). An encrypted key is refused: the callback
   supplies no passphrase, where OpenSSL's default one would prompt on the terminal. */
static inline int copenssl_no_passphrase(char *buffer, int size, int rwflag, void *arg) {
    (void)buffer; (void)size; (void)rwflag; (void)arg;
    return 0;
}
static inline EVP_PKEY *copenssl_private_key_from_pem(const unsigned char *pem, int length) {
    BIO *bio = BIO_new_mem_buf(pem, length);
    if (bio == NULL) return NULL;
    EVP_PKEY *key = PEM_read_bio_PrivateKey(bio, NULL, copenssl_no_passphrase, NULL);
    BIO_free(bio);
    return key;
}
/* Client-side TLS: offer one ALPN protocol (RFC 7301 §3.1), e.g. "\x02h2". */
static inline int copenssl_SSL_set_alpn(SSL *ssl, const unsigned char *protocols, unsigned int length) {
    return SSL_set_alpn_protos(ssl, protocols, length);
}
#endif
