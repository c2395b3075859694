#ifndef C_FUZZ_DRIVER_H
#define C_FUZZ_DRIVER_H

/// Runs libFuzzer on this process's LLVMFuzzerTestOneInput (defined by the harness with @_cdecl).
///
/// SwiftPM links an executable target with its entry point renamed to `<Target>_main`, so libFuzzer's
/// own `main` is never used: each harness defines `<Target>_main` and calls this.
int bracelet_fuzz_main(int argc, char **argv);

#endif
