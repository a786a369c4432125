/* status: 44 */
/* Exit status: atexit handlers run in reverse order, stdio is flushed,
   and exit(300) is seen as 300 & 0xff = 44. Expected: exit 44. */
#include <stdlib.h>
#include "check.h"

static void first(void) { printf("atexit first (runs last)\n"); }
static void second(void) { printf("atexit second (runs first)\n"); }

int main(void)
{
    atexit(first);
    atexit(second);
    printf("buffered line without fflush");
    printf("\n");
    exit(OPAQUE(300));
}
