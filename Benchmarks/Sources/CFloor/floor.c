// The C reference floors. Also builds as a standalone timing program:
//     cc -O2 -DFLOOR_MAIN -I include floor.c -lcrypto   (see ../../scripts/c-floor)
#include "CFloor.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pkcs7.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

int floor_d2i_pkcs7(const uint8_t *der, size_t length) {
    const unsigned char *cursor = der;
    PKCS7 *p7 = d2i_PKCS7(NULL, &cursor, (long)length);
    if (p7 == NULL) return 0;
    PKCS7_free(p7);
    return 1;
}

struct floor_store { X509_STORE *store; };

floor_store *floor_store_new(const uint8_t *root_der, size_t length, int64_t at_time) {
    const unsigned char *cursor = root_der;
    X509 *root = d2i_X509(NULL, &cursor, (long)length);
    if (root == NULL) return NULL;
    floor_store *result = calloc(1, sizeof *result);
    result->store = X509_STORE_new();
    X509_STORE_add_cert(result->store, root);
    X509_free(root);
    X509_VERIFY_PARAM *param = X509_STORE_get0_param(result->store);
    X509_VERIFY_PARAM_set_time(param, (time_t)at_time);
    X509_VERIFY_PARAM_set_purpose(param, X509_PURPOSE_ANY);
    return result;
}

void floor_store_free(floor_store *store) {
    if (store == NULL) return;
    X509_STORE_free(store->store);
    free(store);
}

int floor_pkcs7_verify(const floor_store *store, const uint8_t *der, size_t length) {
    const unsigned char *cursor = der;
    PKCS7 *p7 = d2i_PKCS7(NULL, &cursor, (long)length);
    if (p7 == NULL) return 0;
    BIO *out = BIO_new(BIO_s_null());
    const int ok = PKCS7_verify(p7, NULL, store->store, NULL, out, 0) == 1;
    BIO_free(out);
    PKCS7_free(p7);
    return ok;
}

struct floor_signature {
    EVP_PKEY *key;
    const EVP_MD *md;
    uint8_t *payload;
    size_t payload_length;
    uint8_t *signature;
    size_t signature_length;
};

floor_signature *floor_signature_new(const uint8_t *der, size_t length) {
    const unsigned char *cursor = der;
    PKCS7 *p7 = d2i_PKCS7(NULL, &cursor, (long)length);
    if (p7 == NULL || !PKCS7_type_is_signed(p7)) { PKCS7_free(p7); return NULL; }
    STACK_OF(PKCS7_SIGNER_INFO) *infos = PKCS7_get_signer_info(p7);
    PKCS7_SIGNER_INFO *info = sk_PKCS7_SIGNER_INFO_value(infos, 0);
    X509 *signer = X509_find_by_issuer_and_serial(p7->d.sign->cert, info->issuer_and_serial->issuer,
                                                  info->issuer_and_serial->serial);
    ASN1_OCTET_STRING *content = p7->d.sign->contents->d.data;
    if (signer == NULL || content == NULL) { PKCS7_free(p7); return NULL; }
    floor_signature *result = calloc(1, sizeof *result);
    result->key = X509_get_pubkey(signer);
    result->md = EVP_get_digestbyobj(info->digest_alg->algorithm);
    result->payload_length = (size_t)ASN1_STRING_length(content);
    result->payload = malloc(result->payload_length);
    memcpy(result->payload, ASN1_STRING_get0_data(content), result->payload_length);
    result->signature_length = (size_t)ASN1_STRING_length(info->enc_digest);
    result->signature = malloc(result->signature_length);
    memcpy(result->signature, ASN1_STRING_get0_data(info->enc_digest), result->signature_length);
    PKCS7_free(p7);
    return result;
}

void floor_signature_free(floor_signature *signature) {
    if (signature == NULL) return;
    EVP_PKEY_free(signature->key);
    free(signature->payload);
    free(signature->signature);
    free(signature);
}

int floor_signature_verify(const floor_signature *s) {
    return floor_signature_verify_over(s, s->payload, s->payload_length);
}

int floor_signature_verify_over(const floor_signature *s, const uint8_t *payload, size_t length) {
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    int ok = EVP_DigestVerifyInit(context, NULL, s->md, NULL, s->key) == 1
        && EVP_DigestVerify(context, s->signature, s->signature_length, payload, length) == 1;
    EVP_MD_CTX_free(context);
    return ok;
}

const uint8_t *floor_signature_payload(const floor_signature *signature, size_t *length) {
    *length = signature->payload_length;
    return signature->payload;
}

// StoreKit 2 tokens (compact JWS, ES256): the signature is r || s, 32 bytes each for P-256;
// OpenSSL takes an ECDSA-Sig-Value in DER. Returns a malloc'd DER encoding, or NULL.
static uint8_t *es256_der(const uint8_t *rs, size_t rs_length, size_t *der_length) {
    if (rs_length != 64) return NULL;
    ECDSA_SIG *sig = ECDSA_SIG_new();
    BIGNUM *r = BN_bin2bn(rs, 32, NULL), *s = BN_bin2bn(rs + 32, 32, NULL);
    if (sig == NULL || r == NULL || s == NULL || ECDSA_SIG_set0(sig, r, s) != 1) {
        BN_free(r); BN_free(s); ECDSA_SIG_free(sig);
        return NULL;
    }
    uint8_t *der = NULL;
    const int length = i2d_ECDSA_SIG(sig, &der);
    ECDSA_SIG_free(sig);
    if (length <= 0) return NULL;
    *der_length = (size_t)length;
    return der;
}

struct floor_jws {
    uint8_t *certificates[3];       // leaf, intermediate, root (DER, x5c order)
    size_t lengths[3];
    uint8_t *signing_input;         // the ASCII header.payload
    size_t signing_input_length;
    uint8_t signature[64];          // r || s as in the token
    EVP_PKEY *leaf_key;             // for the warm floor: loaded once
    uint8_t *der_signature;         // for the warm floor: converted once
    size_t der_signature_length;
};

static uint8_t *copy(const uint8_t *bytes, size_t length) {
    uint8_t *result = malloc(length ? length : 1);
    memcpy(result, bytes, length);
    return result;
}

floor_jws *floor_jws_new(const uint8_t *leaf, size_t leaf_length, const uint8_t *intermediate,
                         size_t intermediate_length, const uint8_t *root, size_t root_length,
                         const uint8_t *signing_input, size_t signing_input_length,
                         const uint8_t *signature, size_t signature_length) {
    if (signature_length != 64) return NULL;
    const unsigned char *cursor = leaf;
    X509 *certificate = d2i_X509(NULL, &cursor, (long)leaf_length);
    if (certificate == NULL) return NULL;
    floor_jws *result = calloc(1, sizeof *result);
    result->leaf_key = X509_get_pubkey(certificate);
    X509_free(certificate);
    const uint8_t *certificates[3] = {leaf, intermediate, root};
    const size_t lengths[3] = {leaf_length, intermediate_length, root_length};
    for (int i = 0; i < 3; i++) {
        result->certificates[i] = copy(certificates[i], lengths[i]);
        result->lengths[i] = lengths[i];
    }
    result->signing_input = copy(signing_input, signing_input_length);
    result->signing_input_length = signing_input_length;
    memcpy(result->signature, signature, 64);
    result->der_signature = es256_der(signature, 64, &result->der_signature_length);
    if (result->leaf_key == NULL || result->der_signature == NULL) { floor_jws_free(result); return NULL; }
    return result;
}

void floor_jws_free(floor_jws *jws) {
    if (jws == NULL) return;
    for (int i = 0; i < 3; i++) free(jws->certificates[i]);
    free(jws->signing_input);
    EVP_PKEY_free(jws->leaf_key);
    OPENSSL_free(jws->der_signature);
    free(jws);
}

static int es256_verify(EVP_PKEY *key, const uint8_t *der, size_t der_length, const uint8_t *input, size_t length) {
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    const int ok = EVP_DigestVerifyInit(context, NULL, EVP_sha256(), NULL, key) == 1
        && EVP_DigestVerify(context, der, der_length, input, length) == 1;
    EVP_MD_CTX_free(context);
    return ok;
}

int floor_jws_warm(const floor_jws *jws) {
    return es256_verify(jws->leaf_key, jws->der_signature, jws->der_signature_length, jws->signing_input,
                        jws->signing_input_length);
}

int floor_jws_cold(const floor_jws *jws) {
    X509 *certificates[3] = {NULL, NULL, NULL};
    int ok = 1;
    for (int i = 0; i < 3 && ok; i++) {
        const unsigned char *cursor = jws->certificates[i];
        certificates[i] = d2i_X509(NULL, &cursor, (long)jws->lengths[i]);
        ok = certificates[i] != NULL;
    }
    // Root over intermediate, intermediate over leaf (P-384 in Apple's chain), then the token.
    ok = ok && X509_verify(certificates[1], X509_get0_pubkey(certificates[2])) == 1
        && X509_verify(certificates[0], X509_get0_pubkey(certificates[1])) == 1;
    size_t der_length = 0;
    uint8_t *der = ok ? es256_der(jws->signature, 64, &der_length) : NULL;
    ok = ok && der != NULL
        && es256_verify(X509_get0_pubkey(certificates[0]), der, der_length, jws->signing_input,
                        jws->signing_input_length);
    OPENSSL_free(der);
    for (int i = 0; i < 3; i++) X509_free(certificates[i]);
    return ok;
}

// One TLV header: returns the content length and advances *cursor past the header, or -1.
static long header(const uint8_t **cursor, const uint8_t *end, uint8_t *tag) {
    const uint8_t *p = *cursor;
    if (end - p < 2) return -1;
    *tag = p[0];
    size_t length = p[1];
    p += 2;
    if (length & 0x80) {
        size_t count = length & 0x7F;
        if (count == 0 || count > 4 || (size_t)(end - p) < count) return -1;
        length = 0;
        for (size_t i = 0; i < count; i++) length = length << 8 | *p++;
    }
    if ((size_t)(end - p) < length) return -1;
    *cursor = p;
    return (long)length;
}

static int walk(const uint8_t *p, const uint8_t *end, uint64_t *sum, int depth) {
    if (depth > 32) return 0;
    while (p < end) {
        uint8_t tag;
        const long length = header(&p, end, &tag);
        if (length < 0) return 0;
        const uint8_t *content_end = p + length;
        if (tag & 0x20) {
            if (!walk(p, content_end, sum, depth + 1)) return 0;
        } else if (tag == 0x04 && length > 0 && p[0] == 0x31) {
            if (!walk(p, content_end, sum, depth + 1)) return 0;  // an in-app entry's SET
        } else {
            for (const uint8_t *q = p; q < content_end; q++) *sum += *q;
        }
        p = content_end;
    }
    return 1;
}

uint64_t floor_raw_walk(const uint8_t *payload, size_t length) {
    uint64_t sum = 0;
    return walk(payload, payload + length, &sum, 0) ? sum : UINT64_MAX;
}

#ifdef FLOOR_MAIN
#include <stdio.h>
#include <time.h>

static uint8_t *read_file(const char *path, size_t *length) {
    FILE *file = fopen(path, "rb");
    if (file == NULL) return NULL;
    fseek(file, 0, SEEK_END);
    *length = (size_t)ftell(file);
    fseek(file, 0, SEEK_SET);
    uint8_t *bytes = malloc(*length);
    if (fread(bytes, 1, *length, file) != *length) { free(bytes); bytes = NULL; }
    fclose(file);
    return bytes;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

#define TIME(label, iterations, expr) do { \
        double best = 1e9; \
        for (int round = 0; round < 5; round++) { \
            const double start = now(); \
            for (int i = 0; i < (iterations); i++) { if (!(expr)) { fprintf(stderr, "%s failed\n", label); return 1; } } \
            const double each = (now() - start) / (iterations); \
            if (each < best) best = each; \
        } \
        printf("%-34s %10.2f us\n", label, best * 1e6); \
    } while (0)

// usage: floor RECEIPT ROOT.der UNIX-TIME
int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: %s RECEIPT ROOT.der UNIX-TIME\n", argv[0]); return 64; }
    size_t length = 0, root_length = 0;
    uint8_t *der = read_file(argv[1], &length);
    uint8_t *root = read_file(argv[2], &root_length);
    if (der == NULL || root == NULL) { fprintf(stderr, "cannot read input\n"); return 66; }
    floor_store *store = floor_store_new(root, root_length, atoll(argv[3]));
    floor_signature *signature = floor_signature_new(der, length);
    if (store == NULL || signature == NULL) { fprintf(stderr, "not a receipt\n"); return 65; }
    size_t payload_length = 0;
    const uint8_t *payload = floor_signature_payload(signature, &payload_length);
    printf("%s: %zu bytes, payload %zu bytes\n", argv[1], length, payload_length);
    TIME("d2i_PKCS7", 200, floor_d2i_pkcs7(der, length));
    TIME("d2i_PKCS7 + PKCS7_verify", 200, floor_pkcs7_verify(store, der, length));
    TIME("signature only (key loaded)", 2000, floor_signature_verify(signature));
    const int walks = payload_length > 1000000 ? 20 : 20000;
    double best = 1e9;
    for (int round = 0; round < 5; round++) {
        const double start = now();
        for (int i = 0; i < walks; i++) if (floor_raw_walk(payload, payload_length) == UINT64_MAX) return 1;
        const double each = (now() - start) / walks;
        if (each < best) best = each;
    }
    printf("%-34s %10.2f us  %.0f MB/s\n", "raw DER walk", best * 1e6, (double)payload_length / best / 1e6);
    floor_signature_free(signature);
    floor_store_free(store);
    return 0;
}
#endif
