// libFuzzer's driver, called from Swift.
//
// SwiftPM links an executable's entry point as <module>_main (for testable executables), so
// libFuzzer's own main() is never linked in. Each fuzz target therefore has an ordinary Swift
// @main that hands over to libFuzzer through LLVMFuzzerRunDriver.
#ifndef C_FUZZ_DRIVER_H
#define C_FUZZ_DRIVER_H

#include <stddef.h>
#include <stdint.h>

typedef int (*rf_fuzz_callback)(const uint8_t *data, size_t size);

/// Runs libFuzzer with the process's arguments; returns its exit status.
int rf_run_driver(int argc, char **argv, rf_fuzz_callback callback);

#endif
