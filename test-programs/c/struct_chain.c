/* struct_chain.c -- a struct passed by pointer down the call chain.
 *
 * Exercises: a simulation state struct (scalars, a fixed array, a pointer to
 * a heap array, a nested struct, a function-pointer-free layout) living in
 * main's stack frame and passed by pointer through three levels of calls
 * that update it and reach markers; a second struct allocated on the heap
 * and passed alongside; a struct copy by value held in a local across the
 * marker.
 *
 * Invariant: every live variable of every frame on the chain (including the
 * struct in main's frame, reached only through pointers in callee frames)
 * is restored byte for byte, so the printed results equal those of the
 * uninterrupted run.
 * Argument: number of steps (default 100000).
 */
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

struct vec3 {
    double x, y, z;
};

struct sim {
    long step;
    int flags;
    char name[12];
    struct vec3 pos[32];
    struct vec3 vel[32];
    double *energy_log; /* heap, one entry per step */
    struct {
        double kinetic;
        double potential;
    } energy;
};

struct params {
    double dt;
    double k;
    int substeps;
};

__attribute__((noinline)) static void forces(struct sim *s, const struct params *p, struct vec3 *f) {
    for (int i = 0; i < 32; i++) {
        f[i].x = -p->k * s->pos[i].x;
        f[i].y = -p->k * s->pos[i].y - 0.01 * s->vel[i].y;
        f[i].z = -p->k * s->pos[i].z + 0.001 * (double)(i & 3);
    }
    if ((s->step & 15) == 0)
        dao_potential_checkpoint();
}

__attribute__((noinline)) static void integrate(struct sim *s, const struct params *p) {
    struct vec3 f[32];
    for (int sub = 0; sub < p->substeps; sub++) {
        forces(s, p, f);
        for (int i = 0; i < 32; i++) {
            s->vel[i].x += p->dt * f[i].x;
            s->vel[i].y += p->dt * f[i].y;
            s->vel[i].z += p->dt * f[i].z;
            s->pos[i].x += p->dt * s->vel[i].x;
            s->pos[i].y += p->dt * s->vel[i].y;
            s->pos[i].z += p->dt * s->vel[i].z;
        }
    }
}

__attribute__((noinline)) static void advance(struct sim *s, const struct params *p) {
    struct vec3 before = s->pos[5];
    integrate(s, p);
    dao_potential_checkpoint();
    double ke = 0.0, pe = 0.0;
    for (int i = 0; i < 32; i++) {
        ke += 0.5 * (s->vel[i].x * s->vel[i].x + s->vel[i].y * s->vel[i].y + s->vel[i].z * s->vel[i].z);
        pe += 0.5 * p->k * (s->pos[i].x * s->pos[i].x + s->pos[i].y * s->pos[i].y + s->pos[i].z * s->pos[i].z);
    }
    s->energy.kinetic = ke;
    s->energy.potential = pe;
    s->energy_log[s->step] = ke + pe + 1e-9 * (before.x - s->pos[5].x);
    s->step++;
}

int main(int argc, char **argv) {
    long steps = argc > 1 ? atol(argv[1]) : 100000;
    struct sim s = {0};
    snprintf(s.name, sizeof s.name, "springs");
    s.flags = 3;
    for (int i = 0; i < 32; i++) {
        s.pos[i].x = (double)i * 0.1;
        s.pos[i].y = (double)(i % 5) * -0.2;
        s.pos[i].z = 1.0 / (double)(i + 1);
    }
    s.energy_log = malloc((size_t)steps * sizeof *s.energy_log);
    struct params *p = malloc(sizeof *p);
    p->dt = 0.001;
    p->k = 2.0;
    p->substeps = 40;
    while (s.step < steps) {
        advance(&s, p);
        if (s.step % 10000 == 0)
            printf("%s step %ld ke %a pe %a\n", s.name, s.step, s.energy.kinetic, s.energy.potential);
    }
    double h = 0.0;
    for (long i = 0; i < steps; i++)
        h += s.energy_log[i] * (double)(i % 7 + 1);
    printf("struct_chain: steps=%ld flags=%d log=%.17g pos31=%a,%a,%a\n", steps, s.flags, h, s.pos[31].x, s.pos[31].y, s.pos[31].z);
    free(s.energy_log);
    free(p);
    return 0;
}
