/* Benchmark program for distributed saving (docs/results.md, "Distributed
 * saving"): one large shared heap array updated by a team of threads; a
 * candidate marker after each sweep's implicit barrier, so every thread of
 * the team stands at a candidate when a checkpoint is taken (the case in
 * which workers can help write it).
 *
 * Usage: omp_shared_array MIB STEPS   (array of MIB MiB, STEPS sweeps)
 * Prints a checksum of the array (integer arithmetic: exact for any thread
 * count). */
#include <dao.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    size_t mib = argc > 1 ? (size_t)atol(argv[1]) : 64;
    int steps = argc > 2 ? atoi(argv[2]) : 20;
    size_t n = mib * (1u << 20) / sizeof(uint64_t);
    uint64_t *a = malloc(n * sizeof *a);
    if (!a) {
        perror("malloc");
        return 1;
    }
#pragma omp parallel
    {
#pragma omp for schedule(static)
        for (size_t i = 0; i < n; i++)
            a[i] = i * 0x9E3779B97F4A7C15ull;
        for (int s = 0; s < steps; s++) {
#pragma omp for schedule(static)
            for (size_t i = 0; i < n; i++)
                a[i] = (a[i] ^ (a[i] >> 29)) * 0xBF58476D1CE4E5B9ull + (uint64_t)s;
            dao_potential_checkpoint();
        }
    }
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += a[i] * (i | 1);
    printf("omp_shared_array %zu MiB %d steps: checksum %016llx\n", mib, steps, (unsigned long long)sum);
    free(a);
    return 0;
}
