#ifndef CIPHERDEX_CCRYPTO_SHIM_H
#define CIPHERDEX_CCRYPTO_SHIM_H
// OpenSSL's libcrypto, for AES-256-GCM of attachment chunks only: SQLCipher already links it,
// so no new library is loaded (ARCHITECTURE.md, "Attachments").
#include <openssl/evp.h>

// The GCM controls as plain constants (the macros chain through EVP_CTRL_AEAD_*).
static const int cipherdex_evp_ctrl_gcm_get_tag = EVP_CTRL_GCM_GET_TAG;
static const int cipherdex_evp_ctrl_gcm_set_tag = EVP_CTRL_GCM_SET_TAG;
#endif
