/* heapobj.c -- a program with heap objects (ABI 14), instrumented BY HAND
 * the way the dao pass instruments code (see include/dao_abi.h), for the
 * runtime's tests of heap objects (runtime/tests/abi_restart.rs).
 *
 * The original program:
 *
 *   long n = 16384;                           // global 0
 *   long leak_key;                            // global 1: a disguised pointer
 *   long cover_n;                             // global 2: the count a cover condition reads
 *   int main(void) {
 *       cover_n = getenv("COVER_SHORT") ? n - 1 : n;
 *       double *w = malloc(n * sizeof *w);    // heap object 0 (heapobj.c:20)
 *       double *u = malloc(n * sizeof *u);    // heap object 1 (heapobj.c:21)
 *       unsigned char *x = malloc(64);        // no heap object: found by no scan
 *       memset(x, 0x11, 64); leak_key = (long)x ^ KEY;
 *       for (long i = 0; i < n; i++) u[i] = i;
 *       for (long it = 0; it < STEPS; it++) {
 *           for (long i = 0; i < n; i++) w[i] = u[i] * 0.5 + it;  // heapobj.c:30
 *           for (long i = 0; i < n; i++) u[i] = w[i] + 1;         // heapobj.c:31
 *           printf("step %ld: u[7]=%.17g\n", it, u[7]);
 *           dao_potential_checkpoint();       // marker, site 1
 *       }
 *       double s = 0; for (long i = 0; i < n; i++) s += u[i];
 *       printf("sum=%.17g\n", s);
 *       free(w); free(u);
 *   }
 *
 * At the marker w is dead (the next step rewrites it whole before reading
 * it; after the loop it is only freed): the site does not list it in its
 * globals, and names it in `dead` with what rewrites it first. u is live
 * (in `globals`, and in `kept`: it is 128 KiB). -DW_LIVE lists w in the
 * site's globals (saved); -DW_COND lists it in `cdead` with a cover
 * condition on cover_n (dead while 8 * cover_n reaches its size: not with
 * COVER_SHORT set). With HEAPOBJ_PEEK set, a restart says on stderr whether
 * w's and x's bytes are all 0xff (DAO_DEAD=poison) when it resumes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dao_abi.h"

#define STEPS 6
#define KEY 0x5a5a000000000000l

long n = 16384;
long leak_key;
long cover_n;

/* ---- descriptors (what the pass emits) ---- */
static const dao_module_desc the_module;

static const dao_var_desc mod_globals[] = {
    { "n", "heapobj.c:6", sizeof(n), 0, &n },
    { "leak_key", "heapobj.c:7", sizeof(leak_key), 0, &leak_key },
    { "cover_n", "heapobj.c:8", sizeof(cover_n), 0, &cover_n },
};
#define N_GLOBALS 3
#define W_OBJ (N_GLOBALS + 0)
#define U_OBJ (N_GLOBALS + 1)

/* writable: the program stores each block's address and size */
static dao_heap_desc heaps[] = {
    { "w", "heapobj.c:20", NULL, 0 },
    { "u", "heapobj.c:21", NULL, 0 },
};

/* a cover condition of w: dead while 8 * cover_n + 0 >= its size */
static const dao_cond_desc conds[] = {
    { .object = W_OBJ, .global = 2, .offset = 0, .bytes = 8, .is_signed = 1, .min = 0, .max = 1l << 40, .cover = 8, .global2 = UINT32_MAX },
};

/* main: slots {it, w, u}; one marker site */
static const dao_var_desc main_slots[] = {
    { "it", "heapobj.c:17", 8, 0, NULL },
    { "w", "heapobj.c:20", 8, 8, NULL },
    { "u", "heapobj.c:21", 8, 16, NULL },
};
static const uint32_t site1_slots[] = { 0, 1, 2 };
#ifdef W_LIVE
static const uint32_t site1_globals[] = { 0, 1, 2, U_OBJ, W_OBJ };
#else
static const uint32_t site1_globals[] = { 0, 1, 2, U_OBJ };
#endif
#ifdef W_COND
static const uint32_t site1_cdead[] = { W_OBJ };
#endif
static const uint32_t site1_dead[] = { W_OBJ };
static const char *const site1_dead_why[] = { "the loop at heapobj.c:30" };
static const uint32_t site1_kept[] = { U_OBJ };
static const char *const site1_kept_why[] = { "read first by the loop at heapobj.c:31" };
static const dao_site_desc main_sites[] = {
    {
        .kind = DAO_SITE_MARKER,
        .loc = "heapobj.c:33",
        .n_slots = 3,
        .slots = site1_slots,
        .n_globals = sizeof site1_globals / sizeof site1_globals[0],
        .globals = site1_globals,
#ifdef W_COND
        .n_cdead = 1,
        .cdead = site1_cdead,
#endif
        .n_dead = 1,
        .dead = site1_dead,
        .dead_why = site1_dead_why,
        .n_kept = 1,
        .kept = site1_kept,
        .kept_why = site1_kept_why,
    },
};

static const dao_func_desc funcs[] = {
    { "main", &the_module, 1, main_sites, 3, main_slots, 0, NULL, 24 },
};

static const dao_module_desc the_module = {
    .abi_version = DAO_ABI_VERSION,
    .module_hash = 0x686561706f626a31ull,
    .source_name = "heapobj.c",
    .n_globals = N_GLOBALS,
    .globals = mod_globals,
    .n_funcs = 1,
    .funcs = funcs,
    .n_conds = 1,
    .conds = conds,
    .n_heaps = 2,
    .heaps = heaps,
};

__attribute__((constructor)) static void dao_module_ctor(void) {
    dao_register_module(&the_module);
}

static const char *poisoned(const unsigned char *p, size_t len) {
    for (size_t k = 0; k < len; k++)
        if (p[k] != 0xff)
            return "not poisoned";
    return "poisoned";
}

/* ---- the instrumented main ---- */

static int user_main(int argc, char **argv, char **envp) {
    (void)argc; (void)argv; (void)envp;
    uint64_t slots[3];
    dao_frame fr = { 0 };
    fr.func = &funcs[0];
    fr.allocas = NULL;
    fr.slots = slots;
    long it, i;
    double *w, *u;
    switch (dao_frame_enter(&fr)) {
    case 1:
        it = (long)slots[0];
        w = (double *)slots[1];
        u = (double *)slots[2];
        if (getenv("HEAPOBJ_PEEK"))
            fprintf(stderr, "heapobj: resumed at step %ld: w %s, x %s\n", it, poisoned((unsigned char *)w, n * sizeof *w),
                    poisoned((unsigned char *)(leak_key ^ KEY), 64));
        goto after_site1;
    default:
        break;
    }
    cover_n = getenv("COVER_SHORT") ? n - 1 : n;
    w = dao_malloc(n * sizeof *w);
    heaps[0].addr = w;
    heaps[0].size = n * sizeof *w;
    u = dao_malloc(n * sizeof *u);
    heaps[1].addr = u;
    heaps[1].size = n * sizeof *u;
    unsigned char *x = dao_malloc(64);
    memset(x, 0x11, 64);
    leak_key = (long)x ^ KEY;
    for (i = 0; i < n; i++)
        u[i] = (double)i;
    for (it = 0; it < STEPS; it++) {
        for (i = 0; i < n; i++)
            w[i] = u[i] * 0.5 + (double)it;
        for (i = 0; i < n; i++)
            u[i] = w[i] + 1;
        printf("step %ld: u[7]=%.17g\n", it, u[7]);
        /* marker: spill live values, set the site, call the runtime */
        slots[0] = (uint64_t)it;
        slots[1] = (uint64_t)w;
        slots[2] = (uint64_t)u;
        fr.site = 1;
        dao_candidate(&fr);
    after_site1:;
    }
    double s = 0;
    for (i = 0; i < n; i++)
        s += u[i];
    printf("sum=%.17g\n", s);
    heaps[0].addr = NULL;
    dao_free(w);
    heaps[1].addr = NULL;
    dao_free(u);
    dao_frame_leave(&fr);
    return 0;
}

/* The pass renames main and emits this one. */
int main(int argc, char **argv, char **envp) {
    return dao_main(argc, argv, envp, user_main);
}
