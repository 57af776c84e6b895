/* state_c/state.c -- module state without a marker (see main.c). */
#include <stdio.h>
#include <stdlib.h>

static long counter;
static unsigned long long seed = 88172645463325252ULL;
static double hist[8];
static _Thread_local long tcalls; /* thread-local state of a file without markers */
long st_exported;

long st_next(void) {
    tcalls += 2;
    return ++counter;
}

double st_random(void) {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return (double)(seed >> 11) / 9007199254740992.0;
}

void st_accumulate(double r) {
    static long calls; /* a function-local static */
    hist[(int)(r * 8.0) & 7] += r;
    calls++;
    if (calls % 10 == 0)
        hist[0] += 1.0;
}

void st_report(void) {
    printf("counter %ld exported %ld thread-local %ld\n", counter, st_exported, tcalls);
    for (int k = 0; k < 8; k++)
        printf("hist[%d] %.12f\n", k, hist[k]);
}

/* an exit handler registered before the first checkpoint (in st_next's
 * first call): a restart must register it again */
static void at_end(void) { printf("at exit: counter %ld\n", counter); }
void st_register(void) { atexit(at_end); }
