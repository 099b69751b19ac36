// The C floor of receipt-dump over a batch of receipts, built by dump-batch-floor with
// ../Sources/CFloor/floor.c:
//     batch-floor RECEIPT...
// Per receipt, in one timed pass: read the file (open, fstat, malloc, read, close), check its
// signature over the payload in the bytes just read with the signer's key already loaded
// (floor_signature_verify_over: EVP_DigestVerify, as the "C signature only" benchmark), and the
// raw DER walk of that payload (floor_raw_walk). Loading the keys and finding where each payload
// lies in its file happen before the pass, untimed. Prints the pass's process CPU time and the
// wall time of each step, in seconds:
//     files N cpu S wall S read S signature S walk S
#define _GNU_SOURCE  // memmem
#include "CFloor.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

// The whole file at `path` in a fresh malloc'd buffer, or NULL.
static uint8_t *read_file(const char *path, size_t *length) {
    const int descriptor = open(path, O_RDONLY | O_CLOEXEC);
    if (descriptor < 0) return NULL;
    struct stat status;
    uint8_t *bytes = NULL;
    if (fstat(descriptor, &status) == 0 && (bytes = malloc((size_t)status.st_size + 1)) != NULL) {
        size_t total = 0;
        ssize_t count;
        while ((count = read(descriptor, bytes + total, (size_t)status.st_size + 1 - total)) > 0) total += (size_t)count;
        *length = total;
    }
    close(descriptor);
    return bytes;
}

static double seconds(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

struct receipt {
    const char *path;
    floor_signature *signature;
    size_t payload_offset, payload_length;
};

int main(int argc, char **argv) {
    const int count = argc - 1;
    struct receipt *receipts = calloc((size_t)count, sizeof *receipts);
    for (int i = 0; i < count; i++) {
        size_t length = 0, payload_length = 0;
        uint8_t *der = read_file(argv[i + 1], &length);
        floor_signature *signature = der ? floor_signature_new(der, length) : NULL;
        if (signature == NULL) { fprintf(stderr, "%s: not a receipt\n", argv[i + 1]); return 65; }
        const uint8_t *payload = floor_signature_payload(signature, &payload_length);
        const uint8_t *found = memmem(der, length, payload, payload_length);
        if (found == NULL) { fprintf(stderr, "%s: payload not found\n", argv[i + 1]); return 65; }
        receipts[i] = (struct receipt){argv[i + 1], signature, (size_t)(found - der), payload_length};
        free(der);
    }
    double read_time = 0, signature_time = 0, walk_time = 0;
    const double cpu_start = seconds(CLOCK_PROCESS_CPUTIME_ID), start = seconds(CLOCK_MONOTONIC);
    for (int i = 0; i < count; i++) {
        const struct receipt *r = &receipts[i];
        const double t0 = seconds(CLOCK_MONOTONIC);
        size_t length = 0;
        uint8_t *der = read_file(r->path, &length);
        if (der == NULL || length < r->payload_offset + r->payload_length) { fprintf(stderr, "%s: cannot read\n", r->path); return 66; }
        const uint8_t *payload = der + r->payload_offset;
        const double t1 = seconds(CLOCK_MONOTONIC);
        if (!floor_signature_verify_over(r->signature, payload, r->payload_length)) { fprintf(stderr, "%s: bad signature\n", r->path); return 1; }
        const double t2 = seconds(CLOCK_MONOTONIC);
        if (floor_raw_walk(payload, r->payload_length) == UINT64_MAX) { fprintf(stderr, "%s: malformed\n", r->path); return 1; }
        const double t3 = seconds(CLOCK_MONOTONIC);
        free(der);
        read_time += t1 - t0, signature_time += t2 - t1, walk_time += t3 - t2;
    }
    const double cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu_start, wall = seconds(CLOCK_MONOTONIC) - start;
    printf("files %d cpu %.9f wall %.9f read %.9f signature %.9f walk %.9f\n",
           count, cpu, wall, read_time, signature_time, walk_time);
    for (int i = 0; i < count; i++) floor_signature_free(receipts[i].signature);
    free(receipts);
    return 0;
}
