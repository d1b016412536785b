#include "cshims.h"

// Kept out of line: callgrind toggles collection on entering and leaving this symbol.
__attribute__((noinline)) void ib_measured(void (*body)(void *), void *context) {
    body(context);
    __asm__ volatile("" ::: "memory");
}
