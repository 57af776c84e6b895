/* alloca_in_loop.c -- MUST BE REJECTED at compile time.
 *
 * A function on the path to a marker calls alloca(3) in a loop: each
 * iteration grows its frame by a run-time amount that only the return
 * releases, so the frame cannot be rebuilt at its old address on restart
 * (address-preserving restart), and the pass cannot move the allocations
 * to the heap either (a loop may make any number of them; a VLA at
 * function scope or in a loop's body is moved: test-programs/c/vla_stack.c).
 * `dao cc` must fail with a diagnostic naming file:line and mentioning dao.
 *
 * The harness accepts a diagnostic naming any line marked `dao-expect-error`.
 */
#include <alloca.h>
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

__attribute__((noinline)) static double work(double **v, int k, int n) {
    double s = 0.0;
    for (int j = 0; j < k; j++)
        for (int i = 0; i < n; i++) {
            s += v[j][i];
            dao_potential_checkpoint();
        }
    return s;
}

__attribute__((noinline)) static double run(int k, int n) {
    double *v[16];
    for (int j = 0; j < k && j < 16; j++) {
        v[j] = alloca(n * sizeof(double)); /* dao-expect-error */
        for (int i = 0; i < n; i++)
            v[j][i] = (double)(i + j);
    }
    return work(v, k, n); /* dao-expect-error */
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 100;
    int k = argc > 2 ? atoi(argv[2]) : 4; /* a run-time trip count: the loop stays a loop at -O2 */
    printf("%a\n", run(k, n));
    return 0;
}
