/* realloc_buffer.c -- buffers grown with realloc.
 *
 * Exercises: a dynamic array of doubles and a byte buffer grown by realloc
 * (doubling, so blocks move), an array of structs grown by 1.5x, and a
 * buffer shrunk with realloc; markers between growth steps, with the
 * current capacity and length held in registers across the marker.
 *
 * Invariant: every heap block is restored at its old address with its old
 * contents (realloc moves are replayed exactly), and every live variable of
 * every frame on the chain is restored byte for byte, so the printed
 * results equal those of the uninterrupted run.
 * Argument: number of elements to push (default 1000000).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dao.h"

struct rec {
    int id;
    short tag;
    double w;
};

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    size_t cap = 4, len = 0;
    double *v = malloc(cap * sizeof *v);
    size_t bcap = 16, blen = 0;
    char *bytes = malloc(bcap);
    size_t rcap = 2, rlen = 0;
    struct rec *recs = malloc(rcap * sizeof *recs);
    unsigned long long h = 0;
    double x = 0.5;
    for (long i = 0; i < n; i++) {
        for (int r = 0; r < 60; r++)
            x = 3.7 * x * (1.0 - x);
        if (len == cap) {
            cap *= 2;
            v = realloc(v, cap * sizeof *v);
            dao_potential_checkpoint();
        }
        v[len++] = x;
        if (i % 3 == 0) {
            if (blen + 8 > bcap) {
                bcap = bcap * 2;
                bytes = realloc(bytes, bcap);
            }
            memcpy(bytes + blen, &i, 8);
            blen += 8;
        }
        if (i % 1000 == 0) {
            if (rlen == rcap) {
                rcap = rcap + rcap / 2 + 1;
                recs = realloc(recs, rcap * sizeof *recs);
            }
            recs[rlen].id = (int)i;
            recs[rlen].tag = (short)(i % 321);
            recs[rlen].w = x;
            rlen++;
        }
        if (i % 20000 == 0)
            dao_potential_checkpoint();
        if (i % 200000 == 199999) {
            double s = 0.0;
            for (size_t k = 0; k < len; k += 97)
                s += v[k];
            printf("push %ld cap %zu bcap %zu rcap %zu sample %a\n", i + 1, cap, bcap, rcap, s);
        }
    }
    /* shrink and keep going */
    size_t keep = len / 3;
    v = realloc(v, keep * sizeof *v);
    dao_potential_checkpoint();
    for (size_t k = 0; k < keep; k++)
        h = h * 1099511628211ULL + (unsigned long long)(v[k] * 1e9);
    for (size_t k = 0; k < blen; k++)
        h = (h ^ (unsigned char)bytes[k]) * 1099511628211ULL;
    for (size_t k = 0; k < rlen; k++)
        h = h * 31 + (unsigned long long)recs[k].id + (unsigned long long)recs[k].tag + (unsigned long long)(recs[k].w * 1e6);
    printf("realloc_buffer: n=%ld len=%zu keep=%zu blen=%zu rlen=%zu x=%a hash=%llu\n", n, len, keep, blen, rlen, x, h);
    free(v);
    free(bytes);
    free(recs);
    return 0;
}
