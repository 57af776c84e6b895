/* state_c/main.c -- the marker lives here; the state lives in state.c.
 *
 * Exercises: state kept in a translation unit without markers, as timer,
 * random-number and bookkeeping modules keep it: a file-scope static call
 * counter, a static generator seed, a static array, a function-local
 * static, a thread-local counter, an exported global, and a static time base (gettimeofday-style)
 * that a restart must not reset, and an atexit handler registered before
 * the first checkpoint. Compiled file by file (dao cc -c) and
 * together.
 *
 * Invariant: every global and static of every module that code after the
 * checkpoint may read is restored byte for byte, so the printed result of
 * a killed and restarted run equals the uninterrupted run's.
 * Argument: number of steps (default 30).
 */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

long st_next(void);          /* state.c: bumps the call counter */
double st_random(void);      /* state.c: its own generator */
void st_accumulate(double);  /* state.c: a static array */
void st_report(void);        /* state.c: prints everything */
void st_register(void);      /* state.c: registers an atexit handler */
extern long st_exported;     /* state.c: an exported global */
void st_timer_start(void);   /* timer.c: static time base */
double st_timer_elapsed(void);

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 30;
    double sum = 0.0;
    st_timer_start();
    st_register();
    for (long i = 0; i < n; i++) {
        dao_potential_checkpoint();
        long c = st_next();
        double r = st_random();
        st_accumulate(r);
        sum += r * (double)c;
        st_exported += c;
        for (volatile long w = 0; w < 200000; w++)
            ;
    }
    printf("sum %.12f\n", sum);
    st_report();
    /* elapsed time is never negative nor absurdly large after a restart */
    double e = st_timer_elapsed();
    printf("timer %s\n", e >= 0.0 && e < 3600.0 ? "ok" : "WRONG");
    return 0;
}
