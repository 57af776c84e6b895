/* pause_ms: sleep about `ms` milliseconds, whatever signals interrupt the
 * sleep (nanosleep returns early with EINTR when a handler runs, SA_RESTART
 * or not), so that a phase lasts as long as asked. */
#ifndef SIGNALS_PAUSE_H
#define SIGNALS_PAUSE_H
#include <time.h>

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static void pause_ms(double ms) {
    double end = now_ms() + ms;
    for (;;) {
        double left = end - now_ms();
        if (left <= 0)
            return;
        struct timespec r = {(time_t)(left / 1e3), (long)((left - (time_t)(left / 1e3) * 1e3) * 1e6)};
        nanosleep(&r, NULL);
    }
}
#endif
