// Liveness on real IR, through the remarks: at the marker only what is read
// afterwards is kept. `tmp` is overwritten before any read (dead), `big`
// is never read again (dead), `acc` and `n` and the global `out` are live.
// RUN: %clang -O0 -gline-tables-only %s > in.ll && DAO_REMARKS=1 %opt in.ll -o /dev/null 2> rem.txt; %FileCheck %s < rem.txt
#include "dao.h"
double out;
double big[1000];
void run(int n) {
  double acc = 0, tmp = 0;
  for (int i = 0; i < 1000; i++) big[i] = i;
  for (int i = 0; i < n; i++) acc += big[i % 1000];
  dao_potential_checkpoint();
  tmp = acc * 2;
  out = tmp + n;
}
// CHECK: remarks_liveness.c:12: candidate 1 in 'run': live: 0 values (0 B) [], 2 stack objects (12 B) [n.addr, acc], 0 globals (0 B) []
