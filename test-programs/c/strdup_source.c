/* strdup_source.c -- buffers read only by strdup/strndup after a marker loop.
 *
 * Exercises: a char buffer on main's stack (`name`) and a static global
 * (`label`) are filled before a loop with a marker and are not touched in
 * the loop; after it, the only reads of them are `strdup(name)` and
 * `strndup(label, 12)`. Liveness must count the source string of strdup and
 * strndup as read (they are routed to the dao heap, but they still read
 * their argument), so both buffers are live at the marker and saved.
 *
 * Invariant: the buffers are restored byte for byte, so the duplicated
 * strings printed at the end equal those of the uninterrupted run.
 * Argument: number of iterations (default 20000000).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dao.h"

static char label[48];

__attribute__((noinline)) static unsigned long mix(unsigned long x, long i) {
    for (int k = 0; k < 20; k++)
        x = (x ^ (x >> 29)) * 0xbf58476d1ce4e5b9UL + (unsigned long)(i + k);
    return x;
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 20000000;
    /* filled before the loop, read only by strdup after it */
    char name[40];
    snprintf(name, sizeof name, "run-%ld-%lx", n, (unsigned long)n * 2654435761UL);
    snprintf(label, sizeof label, "label:%ld:%ld:tail", n % 97, n / 3);
    unsigned long acc = 1;
    for (long i = 0; i < n; i++) {
        acc = mix(acc, i);
        if (i % 1000 == 0)
            dao_potential_checkpoint();
        if (i % 5000000 == 4999999)
            printf("i=%ld acc=%lu\n", i + 1, acc);
    }
    char *a = strdup(name);
    char *b = strndup(label, 12);
    printf("strdup_source: n=%ld acc=%lu name=%s label=%s\n", n, acc, a, b);
    free(a);
    free(b);
    return 0;
}
