#include "CFuzzDriver.h"

// Defined in libclang_rt.fuzzer, which -sanitize=fuzzer links in.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

int rf_run_driver(int argc, char **argv, rf_fuzz_callback callback) {
    return LLVMFuzzerRunDriver(&argc, &argv, callback);
}
