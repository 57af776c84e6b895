// Heap calls are routed to the dao heap, whose blocks a restart puts back
// at the same address; the libc declarations disappear.
// RUN: %clang -O0 %s | %opt | %FileCheck %s
#include <stdlib.h>
#include <string.h>
char *dup(const char *s) { return strdup(s); }
double *make(int n) {
  double *p = malloc(n * sizeof *p);
  double *q = calloc(n, sizeof *q);
  p = realloc(p, 2 * n * sizeof *p);
  free(q);
  return p;
}
// CHECK: call {{.*}}@dao_strdup(
// CHECK: call {{.*}}@dao_malloc(
// CHECK: call {{.*}}@dao_calloc(
// CHECK: call {{.*}}@dao_realloc(
// CHECK: call {{.*}}@dao_free(
// CHECK-NOT: declare {{.*}} @malloc(
// CHECK-NOT: declare {{.*}} @free(
