/* in_critical.c -- MUST BE REJECTED at compile time.
 *
 * A marker inside a `#pragma omp critical` section: the thread holding the
 * lock cannot meet the others at the marker while they are blocked waiting
 * for that lock (and the lock's state is runtime state). `dao cc` must fail
 * with a diagnostic naming file:line and mentioning dao.
 *
 * The harness accepts a diagnostic naming any line marked `dao-expect-error`.
 */
#include <stdio.h>
#include "dao.h"

static long hist[16];

int main(void) {
#pragma omp parallel for schedule(static)
    for (int i = 0; i < 100000; i++) {
        int b = (i * 7) % 16;
#pragma omp critical
        {
            hist[b]++;
            if (i % 1000 == 0)
                dao_potential_checkpoint(); /* dao-expect-error */
        }
    }
    long s = 0;
    for (int b = 0; b < 16; b++)
        s = s * 3 + hist[b];
    printf("%ld\n", s);
    return 0;
}
