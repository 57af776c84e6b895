/* uneven_static.c -- static loops whose trip counts do not divide evenly.
 *
 * Exercises: `parallel for schedule(static)` loops with trip counts that
 * are not multiples of the thread count (1000003 iterations; 5 and 7 rows)
 * and loops with fewer iterations than threads (1, 2 and 3 heavy rows, so
 * with 4 threads some threads get no iteration and never reach the marker
 * of that loop), plus a zero-trip loop. Each thread reaches the markers a
 * different number of times.
 * Markers: in every loop body (the long loop every 4096th iteration; the
 * row loops once per row).
 *
 * Invariant: the shared arrays and every thread's frames are restored byte
 * for byte whatever iteration each thread was in, so the output after a
 * restart equals that of the uninterrupted run.
 * Argument: number of rounds (default 200; 8 gives ~0.1 s).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define NLONG 1000003
#define ROWLEN 40000
#define NROWS 7

static int32_t longv[NLONG];
static int64_t rows[NROWS][ROWLEN];

static void row_loop(int nrows, int r) {
#pragma omp parallel for schedule(static)
    for (int k = 0; k < nrows; k++) {
        int64_t acc = k + r;
        for (int j = 0; j < ROWLEN; j++) {
            acc = (acc * 6364136223846793005ll + 1442695040888963407ll) & 0x7fffffffffffll;
            rows[k][j] ^= acc >> 13;
        }
        dao_potential_checkpoint();
        rows[k][0] += acc & 0xff;
    }
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 200;
    int zero = argc > 2 ? atoi(argv[2]) : 0; /* trip count of the zero-trip loop */
    for (int i = 0; i < NLONG; i++)
        longv[i] = i % 65521;
    uint64_t digest = 0;
    for (int r = 0; r < rounds; r++) {
        int64_t s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s)
        for (int i = 0; i < NLONG; i++) {
            longv[i] = (int32_t)((longv[i] * 17 + i + r) % 65521);
            s += longv[i];
            if ((i & 4095) == 4095)
                dao_potential_checkpoint();
        }
        row_loop(1, r);
        row_loop(2, r);
        row_loop(3, r);
        row_loop(5, r);
        row_loop(NROWS, r);
#pragma omp parallel for schedule(static) reduction(+ : s)
        for (int i = 0; i < zero; i++) {
            s += i;
            dao_potential_checkpoint();
        }
        uint64_t rc = 0;
        for (int k = 0; k < NROWS; k++)
            for (int j = 0; j < ROWLEN; j += 97)
                rc = rc * 31 + (uint64_t)rows[k][j];
        digest = (digest ^ (uint64_t)s ^ rc) * 1099511628211ull;
        if (r % 25 == 24 || r == rounds - 1)
            printf("round %d s=%lld rows=%llu\n", r + 1, (long long)s, (unsigned long long)rc);
    }
    printf("uneven_static: rounds=%d digest=%llu v=%d\n", rounds, (unsigned long long)digest, (int)longv[NLONG / 2]);
    return 0;
}
