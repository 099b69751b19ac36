// The C reference floors. Also builds as a standalone timing program:
//     cc -O2 -DFLOOR_MAIN -I include floor.c -lcrypto   (see ../../scripts/c-floor)
#include "CFloor.h"

#include <stdlib.h>
#include <string.h>

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
