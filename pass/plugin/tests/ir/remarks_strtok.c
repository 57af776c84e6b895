// strtok keeps the buffer it was given between calls: `strtok(NULL, ...)`
// after the marker reads `buf`, which no argument names. strtok is unknown
// in the table, so `buf` escapes to it and is live at the marker.
// RUN: %clang -O0 -gline-tables-only %s > in.ll && DAO_REMARKS=1 %opt in.ll -o /dev/null 2> rem.txt; %FileCheck %s < rem.txt
#include <string.h>
#include "dao.h"
char *tok[2];
void run(int n) {
  char buf[32];
  memset(buf, 'a' + n, sizeof buf);
  tok[0] = strtok(buf, ",");
  for (int i = 0; i < n; i++) dao_potential_checkpoint();
  tok[1] = strtok(NULL, ",");
}
// CHECK: remarks_strtok.c:12: candidate {{[0-9]+}} in 'run': live: {{.*}} stack objects {{.*}}buf
