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

/// A StoreKit 2 token (compact JWS, ES256) taken apart once: its three x5c certificates (DER,
/// leaf first), its signing input (the ASCII `header.payload`) and its 64-byte r || s signature.
typedef struct floor_jws floor_jws;
floor_jws *_Nullable floor_jws_new(const uint8_t *_Nonnull leaf, size_t leaf_length,
                                   const uint8_t *_Nonnull intermediate, size_t intermediate_length,
                                   const uint8_t *_Nonnull root, size_t root_length,
                                   const uint8_t *_Nonnull signing_input, size_t signing_input_length,
                                   const uint8_t *_Nonnull signature, size_t signature_length);
void floor_jws_free(floor_jws *_Nullable jws);
/// The warm floor: one ES256 check (`EVP_DigestVerify`, SHA-256 of the signing input plus one
/// P-256 verification) with the leaf's key already loaded and the signature already in DER.
/// Returns 1 if it verifies.
int floor_jws_warm(const floor_jws *_Nonnull jws);
/// The cold floor: `d2i_X509` of the three certificates, `X509_verify` of the intermediate by the
/// root and of the leaf by the intermediate (P-384 in Apple's chain), r || s to DER, and the ES256
/// check with the leaf's key. No policy (names, dates, extensions). Returns 1 if all verify.
int floor_jws_cold(const floor_jws *_Nonnull jws);

/// A raw DER walk of a receipt payload that touches every byte: every TLV header is decoded,
/// constructed elements and OCTET STRINGs holding a SET (in-app entries) are descended into,
/// and every primitive content byte is summed. Returns the sum, or UINT64_MAX if malformed.
uint64_t floor_raw_walk(const uint8_t *_Nonnull payload, size_t length);

#ifdef __cplusplus
}
#endif

#endif
