#ifndef C_RECEIPT_DUMP_THREADS_H
#define C_RECEIPT_DUMP_THREADS_H

// receipt-dump's worker threads. In C because glibc's processor-affinity calls and the CPU_SET
// macros are GNU extensions that Swift's Glibc module does not import, and the shared index
// wants a C11 atomic (Swift's Atomic needs macOS 15; the package supports macOS 13).

#include <stddef.h>

/// Calls `body(context, index)` once for every index below `iterations` and returns when all
/// calls have: index 0 on the calling thread, the others handed out in order, one at a time, to
/// the calling thread and to one new thread for each other processor of the process's mask (no
/// more threads than iterations).
///
/// Each new thread starts on its own processor and is then free to move. Created the usual way,
/// a thread starts on its creator's processor, which is busy, and on this machine often waited
/// a scheduler tick (about a millisecond) before moving to the idle one.
void receipt_dump_threads_apply(size_t iterations, void (*body)(void *context, size_t index), void *context);

#endif
