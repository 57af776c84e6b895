/* linked_list.c -- linked lists on the heap.
 *
 * Exercises: singly linked lists built from many small malloc'ed nodes,
 * nodes inserted in sorted position, removed and freed between markers
 * (so the heap has holes that get reused), a doubly linked list of
 * variable-sized payloads, and pointers into the lists held in locals
 * across the marker.
 *
 * Invariant: every heap block reachable by the program is restored at its
 * old address with its old contents, and every live variable of every frame
 * on the chain is restored byte for byte, so the printed results equal those
 * of the uninterrupted run.
 * Argument: number of operations (default 25000).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dao.h"

struct node {
    long key;
    double val;
    struct node *next;
};

struct dnode {
    struct dnode *prev, *next;
    size_t len;
    unsigned char payload[];
};

static unsigned long long s = 0x9E3779B97F4A7C15ULL;
static unsigned long long rnd(void) {
    s += 0x9E3779B97F4A7C15ULL;
    unsigned long long z = s;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static struct node *insert_sorted(struct node *head, long key, double val) {
    struct node *n = malloc(sizeof *n);
    n->key = key;
    n->val = val;
    if (!head || head->key >= key) {
        n->next = head;
        return n;
    }
    struct node *p = head;
    while (p->next && p->next->key < key)
        p = p->next;
    n->next = p->next;
    p->next = n;
    return head;
}

static struct node *remove_key_above(struct node *head, long limit, long *removed) {
    struct node **pp = &head;
    while (*pp) {
        if ((*pp)->key > limit) {
            struct node *dead = *pp;
            *pp = dead->next;
            free(dead);
            (*removed)++;
        } else {
            pp = &(*pp)->next;
        }
    }
    return head;
}

int main(int argc, char **argv) {
    long ops = argc > 1 ? atol(argv[1]) : 25000;
    struct node *list = NULL;
    struct dnode *dhead = NULL, *dtail = NULL;
    long removed = 0, inserted = 0, dcount = 0;
    struct node *cursor = NULL;
    for (long i = 0; i < ops; i++) {
        unsigned long long r = rnd();
        list = insert_sorted(list, (long)(r % 100000), (double)(r >> 40) / 7.0);
        inserted++;
        if (i % 97 == 0) {
            size_t len = 1 + (size_t)(r % 200);
            struct dnode *d = malloc(sizeof *d + len);
            d->len = len;
            for (size_t k = 0; k < len; k++)
                d->payload[k] = (unsigned char)(r >> (k % 56));
            d->prev = dtail;
            d->next = NULL;
            if (dtail)
                dtail->next = d;
            else
                dhead = d;
            dtail = d;
            dcount++;
        }
        if (i % 500 == 499) {
            list = remove_key_above(list, 100000 - (long)(i % 7) * 9000, &removed);
            cursor = list;
            for (int k = 0; cursor && k < 50; k++)
                cursor = cursor->next;
            if (dhead && dhead->next) {
                struct dnode *d = dhead;
                dhead = dhead->next;
                dhead->prev = NULL;
                free(d);
                dcount--;
            }
        }
        if (i % 40 == 0)
            dao_potential_checkpoint();
        if (i % 5000 == 4999) {
            long len = 0;
            double sum = 0.0;
            for (struct node *p = list; p; p = p->next) {
                len++;
                sum += p->val;
            }
            printf("op %ld len %ld sum %a cursor %ld dcount %ld\n", i + 1, len, sum, cursor ? cursor->key : -1L, dcount);
        }
    }
    unsigned long long h = 1469598103934665603ULL;
    long len = 0;
    for (struct node *p = list; p; p = p->next) {
        h = (h ^ (unsigned long long)p->key) * 1099511628211ULL;
        len++;
    }
    for (struct dnode *d = dtail; d; d = d->prev)
        for (size_t k = 0; k < d->len; k++)
            h = (h ^ d->payload[k]) * 1099511628211ULL;
    printf("linked_list: ops=%ld inserted=%ld removed=%ld len=%ld dcount=%ld hash=%llu\n", ops, inserted, removed, len, dcount, h);
    while (list) {
        struct node *n = list->next;
        free(list);
        list = n;
    }
    while (dhead) {
        struct dnode *n = dhead->next;
        free(dhead);
        dhead = n;
    }
    return 0;
}
