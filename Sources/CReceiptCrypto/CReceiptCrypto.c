#include "CReceiptCrypto.h"

#include <limits.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

// OpenSSL frees its locks and tables from an atexit handler, so a thread still freeing a
// certificate or key while the process exits (a server stopped under load, receipt-dump's workers)
// takes a freed lock and the process dies of SIGSEGV instead of exiting. The request only counts
// if it is OpenSSL's first initialisation, hence at load, before anything else calls it.
__attribute__((constructor)) static void rc_keep_openssl_until_exit(void) {
    OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL);
}

// rc_certificate is an X509 under another name, so Swift never sees OpenSSL's types.
static X509 *as_x509(const rc_certificate *certificate) { return (X509 *)certificate; }

rc_certificate *rc_certificate_parse(const uint8_t *der, size_t length) {
    if (length == 0 || length > LONG_MAX) return NULL;
    const unsigned char *cursor = der;
    X509 *x509 = d2i_X509(NULL, &cursor, (long)length);
    if (x509 == NULL) return NULL;
    if ((size_t)(cursor - der) != length) {  // trailing bytes: not exactly one certificate
        X509_free(x509);
        return NULL;
    }
    // Fill OpenSSL's extension cache now, so later readers on other threads only read.
    if (X509_check_purpose(x509, -1, 0) != 1 || (X509_get_extension_flags(x509) & EXFLAG_INVALID)) {
        X509_free(x509);
        return NULL;
    }
    return (rc_certificate *)x509;
}

void rc_certificate_free(rc_certificate *certificate) { X509_free(as_x509(certificate)); }

static int read_time(const ASN1_TIME *time, rc_time *out) {
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    if (time == NULL || ASN1_TIME_to_tm(time, &tm) != 1) return 0;
    *out = (rc_time){ tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec };
    return 1;
}

int rc_certificate_validity(const rc_certificate *certificate, rc_time *not_before, rc_time *not_after) {
    const X509 *x509 = as_x509(certificate);
    return read_time(X509_get0_notBefore(x509), not_before)
        && read_time(X509_get0_notAfter(x509), not_after);
}
int rc_certificate_extension(const rc_certificate *certificate, const char *oid) {
    ASN1_OBJECT *object = OBJ_txt2obj(oid, 1);
    if (object == NULL) return -2;
    const X509 *x509 = as_x509(certificate);
    const int index = X509_get_ext_by_OBJ(x509, object, -1);
    ASN1_OBJECT_free(object);
    if (index < 0) return -1;
    return X509_EXTENSION_get_critical(X509_get_ext(x509, index)) ? 1 : 0;
}

int rc_certificate_extension_count(const rc_certificate *certificate) {
    return X509_get_ext_count(as_x509(certificate));
}

int rc_certificate_extension_at(const rc_certificate *certificate, int index, char *buffer,
                                size_t capacity, int *critical) {
    const X509_EXTENSION *extension = X509_get_ext(as_x509(certificate), index);
    if (extension == NULL || capacity == 0 || capacity > INT_MAX) return 0;
    if (OBJ_obj2txt(buffer, (int)capacity, X509_EXTENSION_get_object((X509_EXTENSION *)extension), 1) <= 0) {
        return 0;
    }
    *critical = X509_EXTENSION_get_critical(extension) ? 1 : 0;
    return 1;
}

int rc_certificate_is_ca(const rc_certificate *certificate) {
    return (X509_get_extension_flags(as_x509(certificate)) & EXFLAG_CA) ? 1 : 0;
}

int rc_certificate_has_unhandled_critical_extension(const rc_certificate *certificate) {
    return (X509_get_extension_flags(as_x509(certificate)) & EXFLAG_CRITICAL) ? 1 : 0;
}

uint32_t rc_certificate_key_usage(const rc_certificate *certificate) {
    return X509_get_key_usage(as_x509(certificate));
}

size_t rc_certificate_subject_key_id(const rc_certificate *certificate, const uint8_t **bytes) {
    const ASN1_OCTET_STRING *identifier = X509_get0_subject_key_id(as_x509(certificate));
    if (identifier == NULL) return 0;
    *bytes = ASN1_STRING_get0_data(identifier);
    return (size_t)ASN1_STRING_length(identifier);
}

size_t rc_certificate_authority_key_id(const rc_certificate *certificate, const uint8_t **bytes) {
    const ASN1_OCTET_STRING *identifier = X509_get0_authority_key_id(as_x509(certificate));
    if (identifier == NULL) return 0;
    *bytes = ASN1_STRING_get0_data(identifier);
    return (size_t)ASN1_STRING_length(identifier);
}

static rc_curve named_curve(const EVP_PKEY *key) {
    char group[64];
    size_t length = 0;
    if (EVP_PKEY_get_group_name(key, group, sizeof group, &length) != 1) return RC_CURVE_OTHER;
    switch (OBJ_sn2nid(group)) {
    case NID_X9_62_prime256v1: return RC_CURVE_P256;
    case NID_secp384r1: return RC_CURVE_P384;
    default: return RC_CURVE_OTHER;
    }
}

int rc_certificate_public_key(const rc_certificate *certificate, rc_public_key_facts *facts) {
    memset(facts, 0, sizeof *facts);
    facts->type = RC_KEY_OTHER;
    facts->curve = RC_CURVE_NONE;
    EVP_PKEY *key = X509_get0_pubkey(as_x509(certificate));
    if (key == NULL) return 0;
    switch (EVP_PKEY_get_base_id(key)) {
    case EVP_PKEY_RSA: {
        BIGNUM *modulus = NULL;
        BIGNUM *exponent = NULL;
        int ok = EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_RSA_N, &modulus) == 1
            && EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_RSA_E, &exponent) == 1;
        if (ok) {
            facts->type = RC_KEY_RSA;
            facts->rsa_modulus_bits = BN_num_bits(modulus);
            facts->rsa_exponent_bits = BN_num_bits(exponent);
            if (facts->rsa_exponent_bits <= 64) {
                uint8_t bytes[8] = {0};
                ok = BN_bn2binpad(exponent, bytes, sizeof bytes) == (int)sizeof bytes;
                for (size_t index = 0; ok && index < sizeof bytes; index++) {
                    facts->rsa_exponent = facts->rsa_exponent << 8 | bytes[index];
                }
            }
        }
        BN_free(modulus);
        BN_free(exponent);
        if (!ok) memset(facts, 0, sizeof *facts);
        return ok;
    }
    case EVP_PKEY_EC:
        facts->type = RC_KEY_EC;
        facts->curve = named_curve(key);
        return 1;
    default:
        return 1;
    }
}

int rc_certificate_name(const rc_certificate *certificate, int which, char *buffer, size_t capacity) {
    const X509 *x509 = as_x509(certificate);
    const X509_NAME *name = which == 0 ? X509_get_subject_name(x509) : X509_get_issuer_name(x509);
    BIO *bio = BIO_new(BIO_s_mem());
    if (bio == NULL) return -1;
    int result = -1;
    if (X509_NAME_print_ex(bio, name, 0, XN_FLAG_RFC2253 & ~ASN1_STRFLGS_ESC_MSB) >= 0) {
        char *text = NULL;
        const long length = BIO_get_mem_data(bio, &text);
        if (length >= 0 && length < INT_MAX) {
            result = (int)length;
            if (capacity > 0) {
                const size_t copied = (size_t)length < capacity - 1 ? (size_t)length : capacity - 1;
                memcpy(buffer, text, copied);
                buffer[copied] = '\0';
            }
        }
    }
    BIO_free(bio);
    return result;
}

// The digests fetched from the default provider once: EVP_sha256() and the like make
// EVP_Digest look the implementation up again on every call (locks and a hash table each time).
static EVP_MD *fetched_digests[4];
static pthread_once_t digests_fetched = PTHREAD_ONCE_INIT;

static void fetch_digests(void) {
    fetched_digests[0] = EVP_MD_fetch(NULL, "SHA1", NULL);
    fetched_digests[1] = EVP_MD_fetch(NULL, "SHA256", NULL);
    fetched_digests[2] = EVP_MD_fetch(NULL, "SHA384", NULL);
    fetched_digests[3] = EVP_MD_fetch(NULL, "SHA512", NULL);
}

static const EVP_MD *digest_md(rc_digest_algorithm digest) {
    pthread_once(&digests_fetched, fetch_digests);
    const EVP_MD *fetched = NULL, *fallback = NULL;
    switch (digest) {
    case RC_DIGEST_SHA1: fetched = fetched_digests[0]; fallback = EVP_sha1(); break;
    case RC_DIGEST_SHA256: fetched = fetched_digests[1]; fallback = EVP_sha256(); break;
    case RC_DIGEST_SHA384: fetched = fetched_digests[2]; fallback = EVP_sha384(); break;
    case RC_DIGEST_SHA512: fetched = fetched_digests[3]; fallback = EVP_sha512(); break;
    }
    return fetched != NULL ? fetched : fallback;
}

size_t rc_digest(rc_digest_algorithm digest, const uint8_t *data, size_t length, uint8_t *out) {
    const EVP_MD *md = digest_md(digest);
    unsigned int written = 0;
    if (md == NULL || EVP_Digest(data, length, out, &written, md, NULL) != 1) return 0;
    return written;
}

// The DER DigestInfo header (RFC 8017 §9.2, note 1) that precedes the hash in a PKCS #1 v1.5
// signature block.
static const uint8_t *digest_info_prefix(rc_digest_algorithm digest, size_t *length) {
    static const uint8_t sha1[] = {0x30, 0x21, 0x30, 0x09, 0x06, 0x05, 0x2b, 0x0e, 0x03, 0x02, 0x1a,
                                   0x05, 0x00, 0x04, 0x14};
    static const uint8_t sha256[] = {0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01,
                                     0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00, 0x04, 0x20};
    static const uint8_t sha384[] = {0x30, 0x41, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01,
                                     0x65, 0x03, 0x04, 0x02, 0x02, 0x05, 0x00, 0x04, 0x30};
    static const uint8_t sha512[] = {0x30, 0x51, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01,
                                     0x65, 0x03, 0x04, 0x02, 0x03, 0x05, 0x00, 0x04, 0x40};
    switch (digest) {
    case RC_DIGEST_SHA1: *length = sizeof sha1; return sha1;
    case RC_DIGEST_SHA256: *length = sizeof sha256; return sha256;
    case RC_DIGEST_SHA384: *length = sizeof sha384; return sha384;
    case RC_DIGEST_SHA512: *length = sizeof sha512; return sha512;
    }
    return NULL;
}

// A context ready to check signatures with `key`: for RSA, recovery of the signed block with
// PKCS #1 v1.5 padding (see verify_rsa); for EC, ECDSA verification of a hash.
static EVP_PKEY_CTX *new_verify_context(EVP_PKEY *key) {
    EVP_PKEY_CTX *context = EVP_PKEY_CTX_new(key, NULL);
    if (context == NULL) return NULL;
    const int ready = EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA
        ? EVP_PKEY_verify_recover_init(context) == 1 && EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1
        : EVP_PKEY_verify_init(context) == 1;
    if (!ready) {
        EVP_PKEY_CTX_free(context);
        return NULL;
    }
    return context;
}

// rc_verifier is a prepared EVP_PKEY_CTX under another name. Checks copy it (EVP_PKEY_CTX_dup
// only reads it), so one verifier serves any number of threads at once.
static const EVP_PKEY_CTX *as_context(const rc_verifier *verifier) { return (const EVP_PKEY_CTX *)verifier; }

rc_verifier *rc_verifier_new(const rc_certificate *signer) {
    EVP_PKEY *key = X509_get0_pubkey(as_x509(signer));
    if (key == NULL) return NULL;
    const int type = EVP_PKEY_get_base_id(key);
    if (type != EVP_PKEY_RSA && type != EVP_PKEY_EC) return NULL;
    return (rc_verifier *)new_verify_context(key);
}

void rc_verifier_free(rc_verifier *verifier) { EVP_PKEY_CTX_free((EVP_PKEY_CTX *)verifier); }

// RSA PKCS #1 v1.5 by recovering the signed block and comparing the whole DigestInfo. OpenSSL
// checks the 00 01 FF.. 00 padding; we check everything after it. Going through verify_recover
// without a message digest keeps host policies on SHA-1 signatures out of the verdict.
static rc_signature_result verify_rsa(EVP_PKEY *key, const EVP_PKEY_CTX *prepared, rc_digest_algorithm digest,
                                      const uint8_t *hash, size_t hash_length,
                                      const uint8_t *signature, size_t signature_length) {
    size_t prefix_length = 0;
    const uint8_t *prefix = digest_info_prefix(digest, &prefix_length);
    const int modulus_length = EVP_PKEY_get_size(key);
    if (prefix == NULL) return RC_SIGNATURE_UNSUPPORTED_DIGEST;
    if (modulus_length <= 0 || signature_length != (size_t)modulus_length) return RC_SIGNATURE_INVALID;

    rc_signature_result result = RC_SIGNATURE_INTERNAL_ERROR;
    uint8_t *recovered = OPENSSL_malloc((size_t)modulus_length);
    EVP_PKEY_CTX *context = prepared != NULL ? EVP_PKEY_CTX_dup(prepared) : new_verify_context(key);
    size_t recovered_length = (size_t)modulus_length;
    if (recovered != NULL && context != NULL) {
        if (EVP_PKEY_verify_recover(context, recovered, &recovered_length, signature, signature_length) != 1) {
            result = RC_SIGNATURE_INVALID;
        } else if (recovered_length == prefix_length + hash_length
                   && CRYPTO_memcmp(recovered, prefix, prefix_length) == 0
                   && CRYPTO_memcmp(recovered + prefix_length, hash, hash_length) == 0) {
            result = RC_SIGNATURE_VALID;
        } else {
            result = RC_SIGNATURE_INVALID;
        }
    }
    EVP_PKEY_CTX_free(context);
    OPENSSL_free(recovered);
    return result;
}

static rc_signature_result verify_ecdsa(EVP_PKEY *key, const EVP_PKEY_CTX *prepared,
                                        const uint8_t *hash, size_t hash_length,
                                        const uint8_t *signature, size_t signature_length) {
    EVP_PKEY_CTX *context = prepared != NULL ? EVP_PKEY_CTX_dup(prepared) : new_verify_context(key);
    rc_signature_result result = RC_SIGNATURE_INTERNAL_ERROR;
    if (context != NULL) {
        result = EVP_PKEY_verify(context, signature, signature_length, hash, hash_length) == 1
            ? RC_SIGNATURE_VALID : RC_SIGNATURE_INVALID;
    }
    EVP_PKEY_CTX_free(context);
    return result;
}

rc_signature_result rc_verify_signature(const rc_certificate *signer, const rc_verifier *prepared,
                                        rc_signature_scheme scheme, rc_digest_algorithm digest,
                                        const uint8_t *data, size_t data_length,
                                        const uint8_t *signature, size_t signature_length) {
    EVP_PKEY *key = X509_get0_pubkey(as_x509(signer));
    if (key == NULL) return RC_SIGNATURE_UNSUPPORTED_KEY;
    // The scheme comes from the signature's algorithm label; the key must be of its type.
    const int type = EVP_PKEY_get_base_id(key);
    if (!(scheme == RC_SCHEME_RSA_PKCS1 && type == EVP_PKEY_RSA)
        && !(scheme == RC_SCHEME_ECDSA && type == EVP_PKEY_EC)) {
        return RC_SIGNATURE_UNSUPPORTED_KEY;
    }
    uint8_t hash[RC_MAX_DIGEST_LENGTH];
    const size_t hash_length = rc_digest(digest, data, data_length, hash);
    if (hash_length == 0) return RC_SIGNATURE_UNSUPPORTED_DIGEST;
    // A context prepared for another key is not used: the key checked is always the signer's.
    const EVP_PKEY_CTX *context = as_context(prepared);
    if (context != NULL && EVP_PKEY_CTX_get0_pkey((EVP_PKEY_CTX *)context) != key) context = NULL;
    return scheme == RC_SCHEME_RSA_PKCS1
        ? verify_rsa(key, context, digest, hash, hash_length, signature, signature_length)
        : verify_ecdsa(key, context, hash, hash_length, signature, signature_length);
}

// rc_signing_key is an EVP_PKEY under another name, as rc_certificate is an X509.
static EVP_PKEY *as_pkey(const rc_signing_key *key) { return (EVP_PKEY *)key; }

rc_signing_key *rc_signing_key_parse(const uint8_t *der, size_t length) {
    if (length == 0 || length > LONG_MAX) return NULL;
    const unsigned char *cursor = der;
    PKCS8_PRIV_KEY_INFO *info = d2i_PKCS8_PRIV_KEY_INFO(NULL, &cursor, (long)length);
    if (info == NULL) return NULL;
    EVP_PKEY *key = (size_t)(cursor - der) == length ? EVP_PKCS82PKEY(info) : NULL;
    PKCS8_PRIV_KEY_INFO_free(info);
    if (key != NULL && (EVP_PKEY_get_base_id(key) != EVP_PKEY_EC || named_curve(key) != RC_CURVE_P256)) {
        EVP_PKEY_free(key);
        key = NULL;
    }
    return (rc_signing_key *)key;
}

void rc_signing_key_free(rc_signing_key *key) { EVP_PKEY_free(as_pkey(key)); }

size_t rc_signing_key_public_point(const rc_signing_key *key, uint8_t *out) {
    size_t written = 0;
    if (EVP_PKEY_get_octet_string_param(as_pkey(key), OSSL_PKEY_PARAM_PUB_KEY, out, 65, &written) != 1) return 0;
    return written == 65 ? written : 0;
}

size_t rc_signing_key_sign(const rc_signing_key *key, const uint8_t *data, size_t length, uint8_t *out) {
    uint8_t hash[RC_MAX_DIGEST_LENGTH];
    const size_t hash_length = rc_digest(RC_DIGEST_SHA256, data, length, hash);
    if (hash_length == 0) return 0;
    EVP_PKEY_CTX *context = EVP_PKEY_CTX_new(as_pkey(key), NULL);
    size_t written = RC_MAX_ECDSA_DER_LENGTH;
    if (context == NULL || EVP_PKEY_sign_init(context) != 1
        || EVP_PKEY_sign(context, out, &written, hash, hash_length) != 1) {
        written = 0;
    }
    EVP_PKEY_CTX_free(context);
    return written;
}
