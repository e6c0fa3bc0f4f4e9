#ifndef CIPHERDEX_CSODIUM_SHIM_H
#define CIPHERDEX_CSODIUM_SHIM_H
#include <sodium.h>
#endif
