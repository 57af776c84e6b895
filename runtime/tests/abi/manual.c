/* manual.c -- a program instrumented BY HAND exactly the way the dao pass
 * instruments code (see include/dao_abi.h), so that the runtime can be tested
 * without the pass.
 *
 * The original program:
 *
 *   long table[64];                      // a global array
 *   struct node { long v; struct node *next; };
 *   struct node *extra;                  // a global pointing into the heap
 *
 *   long step(struct node **headp, long i) {
 *       struct node *n = malloc(sizeof *n);   // grow a heap list
 *       n->v = i * i; n->next = *headp; *headp = n;
 *       if (i % 5 == 4) { struct node *d = *headp; *headp = d->next; free(d); }
 *       malloc(100);                          // leaked: unreachable
 *       table[i % 64] += i;
 *       dao_potential_checkpoint();           // marker, site 1
 *       long r = 0;
 *       for (struct node *p = *headp; p; p = p->next) r += p->v;
 *       printf("step %ld: r=%ld table=%ld extra=%ld\n", ...);
 *       return r;
 *   }
 *   int main(void) {
 *       struct node *head = NULL;             // stack object 0 (address taken)
 *       long hist[8] = {0};                   // stack object 1
 *       extra = calloc(1, sizeof *extra); extra->v = 1000;
 *       long sum = 0;
 *       puts("start");
 *       for (long i = 0; i < N; i++) {
 *           sum += step(&head, i);            // call site 1
 *           hist[i % 8]++;
 *           extra = realloc(extra, ...);  extra->v += 1;
 *       }
 *       printf("sum=%ld ...\n", ...);
 *   }
 *
 * VARIANT changes the output so that a second, different executable can be
 * built for the "checkpoint of another binary" test.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "dao_abi.h"

#ifndef VARIANT
#define VARIANT 1
#endif
#define N 12

long table[64];
struct node { long v; struct node *next; };
struct node *extra;

/* ---- descriptors (what the pass emits as constant data) ---- */
static const dao_module_desc the_module;

static const dao_var_desc mod_globals[] = {
    { "table", "manual.c:6", sizeof(table), 0, table },
    { "extra", "manual.c:8", sizeof(extra), 0, &extra },
};
static const uint32_t mod_escaped[] = { 0, 1 };

/* step: slots {headp, i}; no stack objects; one marker site. */
static const dao_var_desc step_slots[] = {
    { "headp", "manual.c:10", 8, 0, NULL },
    { "i", "manual.c:10", 8, 8, NULL },
};
static const uint32_t step_site1_slots[] = { 0, 1 };
static const uint32_t step_site1_globals[] = { 0, 1 };
static const dao_site_desc step_sites[] = {
    { DAO_SITE_MARKER, 0, "manual.c:16", NULL, 2, step_site1_slots, 0, NULL, 1, step_site1_globals },
};

/* main: slots {i, sum}; stack objects {head, hist}; one call site. */
static const dao_var_desc main_slots[] = {
    { "i", "manual.c:27", 8, 0, NULL },
    { "sum", "manual.c:26", 8, 8, NULL },
};
static const dao_var_desc main_allocas[] = {
    { "head", "manual.c:23", sizeof(struct node *), 0, NULL },
    { "hist", "manual.c:24", 8 * sizeof(long), 1, NULL },
};
static const uint32_t main_site1_slots[] = { 0, 1 };
static const uint32_t main_site1_allocas[] = { 0, 1 };
static const uint32_t main_site1_globals[] = { 1 };
static const dao_site_desc main_sites[] = {
    { DAO_SITE_CALL, 0, "manual.c:28", "step", 2, main_site1_slots, 2, main_site1_allocas, 1, main_site1_globals },
};

static const dao_func_desc funcs[] = {
    { "step", &the_module, 1, step_sites, 2, step_slots, 0, NULL, 16 },
    { "main", &the_module, 1, main_sites, 2, main_slots, 2, main_allocas, 16 },
};

static const dao_module_desc the_module = {
    DAO_ABI_VERSION, 0, 0x6d616e75616c2e63ull, "manual.c",
    2, mod_globals, 2, mod_escaped, 2, funcs,
};

__attribute__((constructor)) static void dao_module_ctor(void) {
    dao_register_module(&the_module);
}

/* ---- instrumented functions ---- */

static long step(struct node **headp, long i) {
    uint64_t slots[2];
    dao_frame fr = { 0 };
    fr.func = &funcs[0];
    fr.allocas = NULL;
    fr.slots = slots;
    switch (dao_frame_enter(&fr)) {
    case 1:
        headp = (struct node **)slots[0];
        i = (long)slots[1];
        goto after_site1;
    default:
        break;
    }
    struct node *n = dao_malloc(sizeof *n);
    n->v = i * i;
    n->next = *headp;
    *headp = n;
    if (i % 5 == 4) {
        struct node *d = *headp;
        *headp = d->next;
        dao_free(d);
    }
    (void)dao_malloc(100); /* leaked on purpose: unreachable at checkpoints */
    table[i % 64] += i;
    /* marker: spill live values, set the site, call the runtime */
    slots[0] = (uint64_t)headp;
    slots[1] = (uint64_t)i;
    fr.site = 1;
    dao_candidate(&fr);
after_site1:;
    long r = 0;
    for (struct node *p = *headp; p; p = p->next)
        r += p->v;
    printf("step %ld: r=%ld table=%ld extra=%ld\n", i, r, table[i % 64], extra->v);
    dao_frame_leave(&fr);
    return r;
}

static int user_main(int argc, char **argv, char **envp) {
    (void)argc; (void)argv; (void)envp;
    uint64_t slots[2];
    struct node *head;
    long hist[8];
    void *allocas[2] = { &head, hist };
    dao_frame fr = { 0 };
    fr.func = &funcs[1];
    fr.allocas = allocas;
    fr.slots = slots;
    long i, sum;
    switch (dao_frame_enter(&fr)) {
    case 1:
        i = (long)slots[0];
        sum = (long)slots[1];
        goto site1;
    default:
        break;
    }
    head = NULL;
    memset(hist, 0, sizeof hist);
    extra = dao_calloc(1, sizeof *extra);
    extra->v = 1000;
    sum = 0;
    puts(VARIANT == 1 ? "start" : "start (variant)");
    for (i = 0; i < N; i++) {
        slots[0] = (uint64_t)i;
        slots[1] = (uint64_t)sum;
        fr.site = 1;
    site1:
        sum += step(&head, i);
        hist[i % 8]++;
        extra = dao_realloc(extra, sizeof *extra + 16 * (size_t)(i + 1));
        extra->v += 1;
    }
    long h = 0;
    for (int k = 0; k < 8; k++)
        h = h * 3 + hist[k];
    long t = 0;
    for (int k = 0; k < 64; k++)
        t += table[k];
    printf("sum=%ld hist=%ld table=%ld extra=%ld\n", sum, h, t, extra->v);
    dao_frame_leave(&fr);
    return 0;
}

/* The pass renames main and emits this one. */
int main(int argc, char **argv, char **envp) {
    return dao_main(argc, argv, envp, user_main);
}
