// libFuzzer's driver entry (compiler-rt's libclang_rt.fuzzer_no_main), for FuzzSupport.
#ifndef CFUZZDRIVER_H
#define CFUZZDRIVER_H
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
