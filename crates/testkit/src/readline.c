/* A minimal line reader with GNU readline's entry points (readline,
   add_history, rl_readline_name), for Alpha guests that have no readline
   library: the prompt on stdout, then one line from stdin, as lua.c does
   without readline. The Lua test suite's main.lua expects lua.c's
   default `dlopen("libreadline.so")` to succeed (with `-E -W` it asserts
   that no "unable to load readline" warning appears). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

const char *rl_readline_name = "other";

char *readline(const char *prompt) {
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    if (prompt) {
        fputs(prompt, stdout);
        fflush(stdout);
    }
    n = getline(&line, &cap, stdin);
    if (n < 0) {
        free(line);
        return NULL;
    }
    if (n > 0 && line[n - 1] == '\n')
        line[n - 1] = '\0';
    return line;
}

void add_history(const char *line) {
    (void)line;
}
