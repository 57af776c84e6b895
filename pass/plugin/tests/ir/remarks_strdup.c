// strdup and strndup read their source string: a stack buffer and a global
// read only by them after the marker are live there (and their results are
// heap blocks, found by reachability: nothing to save for them).
// RUN: %clang -O0 -gline-tables-only %s > in.ll && DAO_REMARKS=1 %opt in.ll -o /dev/null 2> rem.txt; %FileCheck %s < rem.txt
// RUN: %clang -O2 -gline-tables-only %s > in2.ll && DAO_REMARKS=1 %opt in2.ll -o /dev/null 2> rem2.txt; %FileCheck --check-prefix=O2 %s < rem2.txt
#include <stdlib.h>
#include <string.h>
#include "dao.h"
char label[32];
char *a, *b;
void run(int n) {
  char name[16];
  memset(name, n, sizeof name);
  memset(label, n, sizeof label);
  for (int i = 0; i < n; i++) dao_potential_checkpoint();
  a = strdup(name);
  b = strndup(label, 8);
}
// CHECK: remarks_strdup.c:15: candidate 1 in 'run': live: {{.*}} stack objects {{.*}}name{{.*}} globals {{.*}}label
// O2: remarks_strdup.c:15: candidate 1 in 'run': live: {{.*}} stack objects {{.*}}name{{.*}} globals {{.*}}label
