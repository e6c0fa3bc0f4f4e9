// Nothing to compile: the header declares libFuzzer's driver, which `make fuzz` links from
// compiler-rt's libclang_rt.fuzzer_no_main archive.
#include "CFuzzDriver.h"
