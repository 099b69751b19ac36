// CReceiptCrypto: the few things ReceiptParser needs from OpenSSL's libcrypto.
//
// This layer parses X.509 certificates, computes digests, checks signatures and makes ES256
// signatures with a key the caller gives (App Store Connect keys). It makes no
// trust decision: which certificate may sign what, at which time, is policy and lives in Swift
// (Sources/ReceiptParser/Trust). Every function is reentrant; there is no global mutable state,
// so any number of threads may call in at once. Objects returned here are immutable once made.
#ifndef C_RECEIPT_CRYPTO_H
#define C_RECEIPT_CRYPTO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Digest algorithms the shim knows. The numbering is ours, not OpenSSL's.
typedef enum {
    RC_DIGEST_SHA1 = 1,
    RC_DIGEST_SHA256 = 2,
    RC_DIGEST_SHA384 = 3,
    RC_DIGEST_SHA512 = 4,
} rc_digest_algorithm;

/// Largest digest any rc_digest_algorithm produces (SHA-512).
#define RC_MAX_DIGEST_LENGTH 64

/// Results of rc_verify_signature.
typedef enum {
    RC_SIGNATURE_VALID = 1,
    RC_SIGNATURE_INVALID = 0,
    RC_SIGNATURE_UNSUPPORTED_KEY = -1,
    RC_SIGNATURE_UNSUPPORTED_DIGEST = -2,
    RC_SIGNATURE_INTERNAL_ERROR = -3,
} rc_signature_result;

/// Signature schemes rc_verify_signature can check. The caller says which one the signature's
/// algorithm label names; a key of another type is refused, never tried under its own scheme.
typedef enum {
    RC_SCHEME_RSA_PKCS1 = 1,
    RC_SCHEME_ECDSA = 2,
} rc_signature_scheme;

/// Public key types, as rc_certificate_public_key reports them.
typedef enum {
    RC_KEY_OTHER = 0,
    RC_KEY_RSA = 1,
    RC_KEY_EC = 2,
} rc_key_type;

/// Named curves of EC keys. RC_CURVE_OTHER covers every other named curve and explicit
/// parameters; RC_CURVE_NONE is for keys that are not EC.
typedef enum {
    RC_CURVE_NONE = 0,
    RC_CURVE_P256 = 1,
    RC_CURVE_P384 = 2,
    RC_CURVE_OTHER = 3,
} rc_curve;

/// Facts about a certificate's public key; no judgement (that is the Swift key policy's).
typedef struct {
    rc_key_type type;
    /// RSA: bits in the modulus; otherwise 0.
    int32_t rsa_modulus_bits;
    /// RSA: bits in the public exponent (0 for an exponent of 0); otherwise 0.
    int32_t rsa_exponent_bits;
    /// RSA: the public exponent when rsa_exponent_bits <= 64; otherwise 0.
    uint64_t rsa_exponent;
    /// EC: the named curve; otherwise RC_CURVE_NONE.
    rc_curve curve;
} rc_public_key_facts;

/// An X.509 certificate parsed by OpenSSL. Opaque; free with rc_certificate_free.
typedef struct rc_certificate rc_certificate;

/// Parses exactly `length` bytes of DER as one certificate. Returns NULL when the bytes are not
/// exactly one well-formed certificate (trailing bytes included).
rc_certificate *_Nullable rc_certificate_parse(const uint8_t *_Nonnull der, size_t length);

void rc_certificate_free(rc_certificate *_Nullable certificate);

/// A certificate time as OpenSSL reads it (UTCTime or GeneralizedTime), in UTC. Turning it
/// into an instant is calendar arithmetic, which is done once, in Swift.
typedef struct {
    int year;    ///< e.g. 2035
    int month;   ///< 1...12
    int day;     ///< 1...31
    int hour;    ///< 0...23
    int minute;  ///< 0...59
    int second;  ///< 0...60
} rc_time;

/// notBefore and notAfter. Returns 1, or 0 if unreadable.
int rc_certificate_validity(const rc_certificate *_Nonnull certificate,
                            rc_time *_Nonnull not_before, rc_time *_Nonnull not_after);

/// Looks up an extension by dotted OID: -1 absent, 0 present, 1 present and critical,
/// -2 if the OID text is invalid.
int rc_certificate_extension(const rc_certificate *_Nonnull certificate, const char *_Nonnull oid);

/// The number of extensions the certificate carries.
int rc_certificate_extension_count(const rc_certificate *_Nonnull certificate);

/// Writes the dotted OID of extension `index` into `buffer` (NUL-terminated, truncated to
/// `capacity`) and its criticality into `*critical`. Returns 1, or 0 for a bad index.
int rc_certificate_extension_at(const rc_certificate *_Nonnull certificate, int index,
                                char *_Nonnull buffer, size_t capacity, int *_Nonnull critical);

/// 1 if basicConstraints says cA=TRUE, else 0.
int rc_certificate_is_ca(const rc_certificate *_Nonnull certificate);

/// 1 if the certificate carries a critical extension OpenSSL does not understand, else 0.
int rc_certificate_has_unhandled_critical_extension(const rc_certificate *_Nonnull certificate);

/// The keyUsage bits in OpenSSL's KU_* layout (KU_DIGITAL_SIGNATURE = 0x80, KU_KEY_CERT_SIGN =
/// 0x04), or UINT32_MAX when the extension is absent.
uint32_t rc_certificate_key_usage(const rc_certificate *_Nonnull certificate);

/// Points `*bytes` at the subjectKeyIdentifier extension's key identifier (owned by the
/// certificate) and returns its length, or returns 0 when the certificate has none.
size_t rc_certificate_subject_key_id(const rc_certificate *_Nonnull certificate,
                                     const uint8_t *_Nullable *_Nonnull bytes);

/// Points `*bytes` at the authorityKeyIdentifier extension's keyIdentifier (owned by the
/// certificate) and returns its length, or returns 0 when the certificate has none.
size_t rc_certificate_authority_key_id(const rc_certificate *_Nonnull certificate,
                                       const uint8_t *_Nullable *_Nonnull bytes);

/// Describes the certificate's public key into `*facts`. Returns 1, or 0 when the key cannot be
/// read (facts->type is then RC_KEY_OTHER).
int rc_certificate_public_key(const rc_certificate *_Nonnull certificate,
                              rc_public_key_facts *_Nonnull facts);

/// Writes the subject (which = 0) or issuer (which = 1) as an RFC 2253 string into `buffer`,
/// NUL-terminated and truncated to `capacity`. Returns the full length, or -1 on failure.
int rc_certificate_name(const rc_certificate *_Nonnull certificate, int which,
                        char *_Nonnull buffer, size_t capacity);

/// A certificate's public key set up once for signature checks: OpenSSL finds the algorithm's
/// implementation and sets the padding per context, which rc_verify_signature then copies
/// instead. Read-only once made, so threads may share it. NULL when the key is neither RSA nor
/// EC, or cannot be set up.
typedef struct rc_verifier rc_verifier;
rc_verifier *_Nullable rc_verifier_new(const rc_certificate *_Nonnull signer);
void rc_verifier_free(rc_verifier *_Nullable verifier);

/// Checks `signature` over `data` with the certificate's public key under `scheme`. RSA PKCS #1
/// v1.5 compares the DigestInfo byte for byte, so the outcome does not depend on the host's
/// security level or crypto policy (SHA-1 receipts must keep verifying). A key whose type is not
/// the scheme's gives RC_SIGNATURE_UNSUPPORTED_KEY.
///
/// `prepared`, when not NULL, is rc_verifier_new(signer): the check copies it instead of setting
/// up OpenSSL's context anew (one made for another key is ignored). The outcome is the same with
/// and without it.
rc_signature_result rc_verify_signature(const rc_certificate *_Nonnull signer,
                                        const rc_verifier *_Nullable prepared,
                                        rc_signature_scheme scheme, rc_digest_algorithm digest,
                                        const uint8_t *_Nonnull data, size_t data_length,
                                        const uint8_t *_Nonnull signature, size_t signature_length);

/// Hashes `data` into `out` (at least RC_MAX_DIGEST_LENGTH bytes). Returns the digest length, or 0.
size_t rc_digest(rc_digest_algorithm digest, const uint8_t *_Nonnull data, size_t length,
                 uint8_t *_Nonnull out);

/// A P-256 private key for ES256 (an App Store Connect `.p8`, a promotional-offer key), parsed by
/// OpenSSL. Opaque and immutable; free with rc_signing_key_free. Signing is the only use.
typedef struct rc_signing_key rc_signing_key;

/// Parses exactly `length` bytes of DER PKCS #8 PrivateKeyInfo holding an EC key on P-256.
/// Returns NULL for anything else (another curve or type, trailing bytes, an encrypted key).
rc_signing_key *_Nullable rc_signing_key_parse(const uint8_t *_Nonnull der, size_t length);

void rc_signing_key_free(rc_signing_key *_Nullable key);

/// The key's public point, uncompressed (0x04 ‖ x ‖ y), into `out` (65 bytes). Returns 65, or 0.
size_t rc_signing_key_public_point(const rc_signing_key *_Nonnull key, uint8_t *_Nonnull out);

/// ECDSA over SHA-256 of `data` with a fresh random nonce, as DER ECDSA-Sig-Value into `out`
/// (at least RC_MAX_ECDSA_DER_LENGTH bytes). Returns the signature's length, or 0.
size_t rc_signing_key_sign(const rc_signing_key *_Nonnull key, const uint8_t *_Nonnull data,
                           size_t length, uint8_t *_Nonnull out);

/// Longest DER ECDSA-Sig-Value on P-256: SEQUENCE of two INTEGERs of at most 33 bytes each.
#define RC_MAX_ECDSA_DER_LENGTH 72

#ifdef __cplusplus
}
#endif

#endif
