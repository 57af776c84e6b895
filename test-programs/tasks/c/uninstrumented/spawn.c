/* Built WITHOUT the dao pass (`dao cc --dao-no-pass -c`) and linked into
 * uninstrumented_tasks.c's program: creates one task per element and
 * returns without waiting for them. The runtime cannot count these tasks
 * (their allocation reaches it only through the link-time
 * `--wrap=__kmpc_omp_task_alloc`), so it must take no checkpoint inside
 * the region that created them. */
void spawn_tasks(long *data, int n, int step) {
    for (int k = 0; k < n; k++) {
        #pragma omp task firstprivate(k, step)
        {
            long x = data[k];
            for (int r = 0; r < 20000; r++)
                x = (x * 3 + k + step) % 1000003;
            data[k] = x;
        }
    }
}
