// Reference floors for the benchmarks: what plain libcrypto and plain C cost for the same work.
#ifndef C_FLOOR_H
#define C_FLOOR_H

#include <stddef.h>
#include <stdint.h>

#ifndef __clang__  /* gcc builds of the standalone program */
#define _Nonnull
#define _Nullable
#endif

#ifdef __cplusplus
extern "C" {
#endif

/// d2i_PKCS7 of a whole receipt, then PKCS7_free. Returns 1 on success.
int floor_d2i_pkcs7(const uint8_t *_Nonnull der, size_t length);

/// A trust store holding one root (DER), judging certificates at `at_time` (Unix seconds).
typedef struct floor_store floor_store;
floor_store *_Nullable floor_store_new(const uint8_t *_Nonnull root_der, size_t length, int64_t at_time);
void floor_store_free(floor_store *_Nullable store);

/// d2i_PKCS7 then PKCS7_verify (signature, chain to the store's root, purpose any): OpenSSL's
/// whole verification from bytes. Returns 1 if it verifies.
int floor_pkcs7_verify(const floor_store *_Nonnull store, const uint8_t *_Nonnull der, size_t length);

/// The receipt signature alone with the signer's key already loaded: one EVP_DigestVerify
/// (hash of the payload plus one RSA public-key operation). Made from a receipt once.
typedef struct floor_signature floor_signature;
floor_signature *_Nullable floor_signature_new(const uint8_t *_Nonnull der, size_t length);
void floor_signature_free(floor_signature *_Nullable signature);
/// Returns 1 if the signature verifies.
int floor_signature_verify(const floor_signature *_Nonnull signature);
/// The same signature check over `payload` (a copy of the payload elsewhere, such as in a
/// receipt read again). Returns 1 if it verifies.
int floor_signature_verify_over(const floor_signature *_Nonnull signature, const uint8_t *_Nonnull payload, size_t length);
/// The payload (eContent) the signature covers, owned by `signature`.
const uint8_t *_Nonnull floor_signature_payload(const floor_signature *_Nonnull signature, size_t *_Nonnull length);

/// A raw DER walk of a receipt payload that touches every byte: every TLV header is decoded,
/// constructed elements and OCTET STRINGs holding a SET (in-app entries) are descended into,
/// and every primitive content byte is summed. Returns the sum, or UINT64_MAX if malformed.
uint64_t floor_raw_walk(const uint8_t *_Nonnull payload, size_t length);

#ifdef __cplusplus
}
#endif

#endif
