/* bfs.c -- level-synchronous breadth-first search over a generated graph in
 * compressed sparse rows, repeated from several sources, written for dao
 * as an OpenMP offload program (Jia, Yang and Ma's (2013) "BFS").
 * The graph: NV vertices, each joined to its next two on a ring and to
 * two pseudo-random others (both directions stored). A search: a kernel
 * resets the levels and the frontier; then per level one kernel expands
 * the frontier (every unvisited neighbour of a frontier vertex gets the
 * next level and is marked for the next frontier: all writers of a vertex
 * write the same values) and one makes the marked vertices the new
 * frontier, counting them (an integer reduction: exact); the host loops
 * while the frontier is not empty.
 *
 * Device data: the row offsets and the edges (to, 0.25 + 1.5 MiB), the
 * levels (tofrom) and three flag arrays (alloc scratch). A marker after
 * every level's kernels and at the end of a search. Each search prints its
 * source, its depth, the vertices reached and a sum of the levels (an
 * integer reduction on the device); every 3 searches the levels come back
 * and the host sums them too.
 * Argument: searches (default 12).
 */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define NV 65536
#define RANDOM 2
#define DEG (2 * (2 + RANDOM))

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 12;
    int *start = malloc((NV + 1) * sizeof(int)), *deg = calloc(NV, sizeof(int));
    int *ea = malloc(NV * (2 + RANDOM) * sizeof(int)), *eb = malloc(NV * (2 + RANDOM) * sizeof(int));
    /* undirected edges (a, b), then CSR with both directions */
    unsigned s = 35;
    int ne = 0;
    for (int v = 0; v < NV; v++) {
        for (int d = 1; d <= 2; d++) {
            ea[ne] = v;
            eb[ne++] = (v + d) % NV;
        }
        for (int r = 0; r < RANDOM; r++) {
            s = s * 1103515245u + 12345u;
            /* mostly near (deep searches), sometimes anywhere */
            const int far = ((s >> 4) & 15) == 0;
            const int w = far ? (int)((s >> 8) % NV) : (int)((v + 3 + (s >> 8) % 64) % NV);
            ea[ne] = v;
            eb[ne++] = w;
        }
    }
    for (int e = 0; e < ne; e++) {
        deg[ea[e]]++;
        deg[eb[e]]++;
    }
    start[0] = 0;
    for (int v = 0; v < NV; v++)
        start[v + 1] = start[v] + deg[v];
    const int nedges = start[NV];
    int *edges = malloc(nedges * sizeof(int));
    for (int v = 0; v < NV; v++)
        deg[v] = start[v];
    for (int e = 0; e < ne; e++) {
        edges[deg[ea[e]]++] = eb[e];
        edges[deg[eb[e]]++] = ea[e];
    }
    free(ea);
    free(eb);
    free(deg);
    int *level = malloc(NV * sizeof(int));
    char *frontier = malloc(NV), *next = malloc(NV), *visited = malloc(NV);
    for (int v = 0; v < NV; v++)
        level[v] = -1;
    printf("bfs: %d vertices, %d edge ends\n", NV, nedges);
#pragma omp target enter data map(to: start[0:NV + 1], edges[0:nedges]) map(alloc: frontier[0:NV], next[0:NV], visited[0:NV])
#pragma omp target data map(tofrom: level[0:NV])
    {
        for (int it = 0; it < steps; it++) {
            const int src = (int)((it * 40503u + 17) % NV);
#pragma omp target teams distribute parallel for
            for (int v = 0; v < NV; v++) {
                level[v] = v == src ? 0 : -1;
                frontier[v] = v == src;
                visited[v] = v == src;
                next[v] = 0;
            }
            int depth = 0, reached = 1, count = 1;
            while (count > 0) {
#pragma omp target teams distribute parallel for
                for (int v = 0; v < NV; v++) {
                    if (!frontier[v])
                        continue;
                    frontier[v] = 0;
                    for (int e = start[v]; e < start[v + 1]; e++) {
                        const int w = edges[e];
                        if (!visited[w]) {
                            level[w] = depth + 1;
                            next[w] = 1;
                        }
                    }
                }
                count = 0;
#pragma omp target teams distribute parallel for reduction(+: count)
                for (int v = 0; v < NV; v++) {
                    if (next[v]) {
                        frontier[v] = 1;
                        visited[v] = 1;
                        next[v] = 0;
                        count++;
                    }
                }
                if (count > 0) {
                    depth++;
                    reached += count;
                }
                dao_potential_checkpoint();
            }
            long sum = 0;
#pragma omp target teams distribute parallel for reduction(+: sum)
            for (int v = 0; v < NV; v++)
                sum += level[v] >= 0 ? level[v] : 0;
            printf("search %d from %d: depth %d, reached %d, level sum %ld\n", it + 1, src, depth, reached, sum);
            if (it % 3 == 2) {
#pragma omp target update from(level[0:NV])
                long h = 0;
                for (int v = 0; v < NV; v++)
                    h += (long)(level[v] + 1) * (1 + v % 13);
                printf("levels %d: %ld\n", it + 1, h);
            }
            dao_potential_checkpoint();
        }
    }
#pragma omp target exit data map(delete: start[0:NV + 1], edges[0:nedges], frontier[0:NV], next[0:NV], visited[0:NV])
    long h = 0;
    for (int v = 0; v < NV; v++)
        h += (long)(level[v] + 1) * (1 + v % 7);
    printf("final: %ld\n", h);
    free(start);
    free(edges);
    free(level);
    free(frontier);
    free(next);
    free(visited);
    return 0;
}
