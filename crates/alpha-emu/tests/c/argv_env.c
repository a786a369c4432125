/* status: 4 */
/* args (separated by |): alpha|two words|3 */
/* env: SUBWORD_DIFF=differential */
/* Command-line arguments and the environment as the guest sees them.
   Expected: exit status = argc (4). */
#include <stdlib.h>
#include <string.h>
#include "check.h"

int main(int argc, char **argv, char **envp)
{
    for (int i = 1; i < argc; i++) printf("argv[%d] = \"%s\" (%zu)\n", i, argv[i], strlen(argv[i]));
    CHECK(argv[argc] == NULL);
    const char *v = getenv("SUBWORD_DIFF");
    printf("SUBWORD_DIFF=%s\n", v ? v : "(unset)");
    int found = 0;
    for (char **e = envp; *e; e++)
        if (strncmp(*e, "SUBWORD_DIFF=", 13) == 0) found++;
    printf("in envp %d\n", found);
    CHECK(setenv("SUBWORD_NEW", "yes", 1) == 0 && strcmp(getenv("SUBWORD_NEW"), "yes") == 0);
    CHECK(unsetenv("SUBWORD_DIFF") == 0 && getenv("SUBWORD_DIFF") == NULL);
    printf("argv_env: %d failures\n", failures);
    return failures ? 100 : argc;
}
