#define _GNU_SOURCE
#include "CReceiptDumpThreads.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

enum { max_threads = 256 };

struct apply {
    atomic_size_t next;
    size_t iterations;
    void (*body)(void *, size_t);
    void *context;
#ifdef __linux__
    cpu_set_t mask;  // the process's, which each new thread returns to once it runs
#endif
};

static void take_until_done(struct apply *apply) {
    for (;;) {
        size_t index = atomic_fetch_add_explicit(&apply->next, 1, memory_order_relaxed);
        if (index >= apply->iterations) return;
        apply->body(apply->context, index);
    }
}

static void *worker(void *argument) {
    struct apply *apply = argument;
#ifdef __linux__
    // Pinned only to start in the right place: from here on the scheduler may move it.
    pthread_setaffinity_np(pthread_self(), sizeof apply->mask, &apply->mask);
#endif
    take_until_done(apply);
    return NULL;
}

/// Starts a worker on `processor` (or anywhere if it is negative); returns pthread_create's status.
static int start(pthread_t *thread, struct apply *apply, int processor) {
#ifdef __linux__
    if (processor >= 0) {
        pthread_attr_t attributes;
        if (pthread_attr_init(&attributes) == 0) {
            cpu_set_t only;
            CPU_ZERO(&only);
            CPU_SET(processor, &only);
            int status = pthread_attr_setaffinity_np(&attributes, sizeof only, &only);
            if (status == 0) status = pthread_create(thread, &attributes, worker, apply);
            pthread_attr_destroy(&attributes);
            if (status == 0) return 0;
        }
    }
#else
    (void)processor;
#endif
    return pthread_create(thread, NULL, worker, apply);
}

void receipt_dump_threads_apply(size_t iterations, void (*body)(void *context, size_t index), void *context) {
    if (iterations == 0) return;
    struct apply apply = { .iterations = iterations, .body = body, .context = context };
    atomic_init(&apply.next, 1);
    int processors[max_threads];
    int count = 0;
#ifdef __linux__
    if (sched_getaffinity(0, sizeof apply.mask, &apply.mask) == 0) {
        int current = sched_getcpu();
        for (int cpu = 0; cpu < CPU_SETSIZE && count < max_threads; cpu++) {
            if (cpu != current && CPU_ISSET(cpu, &apply.mask)) processors[count++] = cpu;
        }
    }
#else
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    for (; count < online - 1 && count < max_threads; count++) processors[count] = -1;
#endif
    pthread_t threads[max_threads];
    size_t started = 0;
    for (int i = 0; i < count && started + 1 < iterations; i++) {
        if (start(&threads[started], &apply, processors[i]) == 0) started++;
    }
    body(context, 0);
    take_until_done(&apply);  // a thread that could not be started leaves its share to this one
    for (size_t i = 0; i < started; i++) pthread_join(threads[i], NULL);
}
