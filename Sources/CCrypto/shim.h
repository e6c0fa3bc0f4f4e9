#ifndef CIPHERDEX_CCRYPTO_SHIM_H
#define CIPHERDEX_CCRYPTO_SHIM_H
// OpenSSL's libcrypto, for AES-256-GCM of attachment chunks and the Poly1305 leaves of the
// content hash only: SQLCipher already links it, so no new library is loaded
// (ARCHITECTURE.md, "Attachments").
#include <stddef.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/opensslv.h>

// The GCM controls as plain constants (the macros chain through EVP_CTRL_AEAD_*).
static const int cipherdex_evp_ctrl_gcm_get_tag = EVP_CTRL_GCM_GET_TAG;
static const int cipherdex_evp_ctrl_gcm_set_tag = EVP_CTRL_GCM_SET_TAG;

// Poly1305 through EVP_MAC (OpenSSL 3). With an older libcrypto the context is NULL and the
// caller uses libsodium's Poly1305, which gives the same tags.
#if OPENSSL_VERSION_NUMBER >= 0x30000000L
/// A new Poly1305 MAC context, or NULL.
static inline void *cipherdex_poly1305_context_new(void) {
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "POLY1305", NULL);
    if (mac == NULL) return NULL;
    EVP_MAC_CTX *context = EVP_MAC_CTX_new(mac);
    EVP_MAC_free(mac);  // the context holds its own reference
    return context;
}

static inline void cipherdex_poly1305_context_free(void *context) { EVP_MAC_CTX_free((EVP_MAC_CTX *)context); }

/// The 16-byte Poly1305 tag of `message` under the 32-byte `key`: 1 on success, 0 when a call
/// failed. Poly1305_Final cleanses the state (and with it the key) after every tag.
static inline int cipherdex_poly1305(
    void *context, const unsigned char *key, const unsigned char *message, size_t length, unsigned char *tag) {
    EVP_MAC_CTX *mac = (EVP_MAC_CTX *)context;
    size_t written = 0;
    if (EVP_MAC_init(mac, key, 32, NULL) != 1) return 0;
    int updated = length == 0 || EVP_MAC_update(mac, message, length) == 1;
    int finished = EVP_MAC_final(mac, tag, &written, 16) == 1 && written == 16;
    return updated && finished;
}
#else
static inline void *cipherdex_poly1305_context_new(void) { return NULL; }
static inline void cipherdex_poly1305_context_free(void *context) { (void)context; }
static inline int cipherdex_poly1305(
    void *context, const unsigned char *key, const unsigned char *message, size_t length, unsigned char *tag) {
    (void)context; (void)key; (void)message; (void)length; (void)tag;
    return 0;
}
#endif
#endif
