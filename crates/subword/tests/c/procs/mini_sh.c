/* A stand-in /bin/sh for system() tests: `sh -c "prog arg"` execs the
 * first word of its command with the second word as its one argument. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3 || strcmp(argv[1], "-c")) return 2;
    static char cmd[4096];
    strncpy(cmd, argv[2], sizeof cmd - 1);
    char *args[3] = {strtok(cmd, " "), NULL, NULL};
    if (!args[0]) return 0;
    args[1] = strtok(NULL, " ");
    execv(args[0], args);
    return 127;
}
