/* state_c/timer.c -- a timer module with a static time base, as NPB's
 * wtime.c/c_timers.c keep one. */
#include <sys/time.h>

static double base = -1.0;

static double now(void) {
    struct timeval tv;
    gettimeofday(&tv, 0);
    return (double)tv.tv_sec + 1e-6 * (double)tv.tv_usec;
}

void st_timer_start(void) { base = now(); }
double st_timer_elapsed(void) { return base < 0.0 ? -1.0 : now() - base; }
