/* vla_on_path.c -- MUST BE REJECTED at compile time.
 *
 * A function on the path to a marker has a variable-length array: its
 * frame size depends on run-time data, so the frame cannot be rebuilt at
 * its old address on restart (address-preserving restart). `dao cc` must
 * fail with a diagnostic naming file:line and mentioning dao.
 *
 * The harness accepts a diagnostic naming any line marked `dao-expect-error`.
 */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

__attribute__((noinline)) static double work(double *v, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        s += v[i];
        dao_potential_checkpoint();
    }
    return s;
}

__attribute__((noinline)) static double run(int n) {
    double v[n]; /* dao-expect-error */
    for (int i = 0; i < n; i++)
        v[i] = (double)i;
    return work(v, n); /* dao-expect-error */
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 100;
    printf("%a\n", run(n));
    return 0;
}
