/* hash_table.c -- a chained hash table with strdup'ed keys.
 *
 * Exercises: calloc'ed bucket arrays, strdup'ed string keys, nodes freed and
 * reallocated (deletions), a table that is rehashed into a bigger calloc'ed
 * bucket array (old one freed) while markers are reached, and snprintf into
 * a stack buffer whose contents are live across the marker.
 *
 * Invariant: every heap block (buckets, nodes, strings) is restored at its
 * old address with its old contents, and every live variable of every frame
 * on the chain is restored byte for byte, so the printed results equal those
 * of the uninterrupted run.
 * Argument: number of operations (default 1000000).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dao.h"

struct entry {
    char *key;
    long value;
    struct entry *next;
};

struct table {
    size_t nbuckets, count;
    struct entry **buckets;
};

static unsigned long hash_str(const char *s) {
    unsigned long h = 5381;
    while (*s)
        h = h * 33 + (unsigned char)*s++;
    return h;
}

static void rehash(struct table *t) {
    size_t nb = t->nbuckets * 2;
    struct entry **b = calloc(nb, sizeof *b);
    for (size_t i = 0; i < t->nbuckets; i++) {
        struct entry *e = t->buckets[i];
        while (e) {
            struct entry *next = e->next;
            size_t k = hash_str(e->key) % nb;
            e->next = b[k];
            b[k] = e;
            e = next;
        }
        if (i % 1024 == 0)
            dao_potential_checkpoint();
    }
    free(t->buckets);
    t->buckets = b;
    t->nbuckets = nb;
}

static void put(struct table *t, const char *key, long v) {
    size_t k = hash_str(key) % t->nbuckets;
    for (struct entry *e = t->buckets[k]; e; e = e->next)
        if (strcmp(e->key, key) == 0) {
            e->value += v;
            return;
        }
    struct entry *e = malloc(sizeof *e);
    e->key = strdup(key);
    e->value = v;
    e->next = t->buckets[k];
    t->buckets[k] = e;
    if (++t->count > t->nbuckets * 2)
        rehash(t);
}

static int del(struct table *t, const char *key) {
    size_t k = hash_str(key) % t->nbuckets;
    for (struct entry **pp = &t->buckets[k]; *pp; pp = &(*pp)->next)
        if (strcmp((*pp)->key, key) == 0) {
            struct entry *e = *pp;
            *pp = e->next;
            free(e->key);
            free(e);
            t->count--;
            return 1;
        }
    return 0;
}

int main(int argc, char **argv) {
    long ops = argc > 1 ? atol(argv[1]) : 1000000;
    struct table t = {16, 0, NULL};
    t.buckets = calloc(t.nbuckets, sizeof *t.buckets);
    unsigned long long x = 42;
    long deleted = 0;
    char buf[32];
    for (long i = 0; i < ops; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        snprintf(buf, sizeof buf, "k%llu", (x >> 33) % 200000);
        if (i % 500 == 0)
            dao_potential_checkpoint();
        if ((x >> 20) % 5 == 0)
            deleted += del(&t, buf);
        else
            put(&t, buf, (long)(i & 1023));
        if (i % 100000 == 99999)
            printf("op %ld count %zu buckets %zu deleted %ld last %s\n", i + 1, t.count, t.nbuckets, deleted, buf);
    }
    unsigned long long h = 0;
    for (size_t b = 0; b < t.nbuckets; b++)
        for (struct entry *e = t.buckets[b]; e; e = e->next)
            h += hash_str(e->key) * (unsigned long long)e->value;
    printf("hash_table: ops=%ld count=%zu buckets=%zu deleted=%ld h=%llu\n", ops, t.count, t.nbuckets, deleted, h);
    for (size_t b = 0; b < t.nbuckets; b++) {
        struct entry *e = t.buckets[b];
        while (e) {
            struct entry *n = e->next;
            free(e->key);
            free(e);
            e = n;
        }
    }
    free(t.buckets);
    return 0;
}
