#include "cshims.h"
#include <malloc.h>

// malloc.h's declarations are not part of Swift's Glibc module.
int ib_malloc_trim(void) {
    return malloc_trim(0);
}
