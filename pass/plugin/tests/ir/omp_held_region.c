// A `schedule(dynamic)` loop in a region that calls a function of another
// file (which may or may not reach a marker) is not refused: the region's
// outlined function is held at run time, dao_omp_hold_begin("file:line of
// the loop") right after dao_omp_begin, dao_omp_hold_end before each
// dao_omp_end. The region with a static loop is not held.
// RUN: %clang -fopenmp -O0 -gline-tables-only %s | %opt | %FileCheck %s --check-prefix=HELD
// RUN: %clang -fopenmp -O2 -gline-tables-only %s | %opt | %FileCheck %s --check-prefix=HELD
// With -DOWN the region also reaches this file's marker: refused with
// file:line, as before.
// RUN: %clang -fopenmp -O0 -gline-tables-only -DOWN %s > in.ll && %not %opt in.ll -o /dev/null 2> err.txt; %FileCheck %s --check-prefix=OWN < err.txt
#include "dao.h"
double weight(int i);
double field[1024];

void step(int s) {
#pragma omp parallel
  {
#pragma omp for schedule(dynamic, 4)
    for (int i = 0; i < 1024; i++)
      field[i] = 0.5 * field[i] + weight(i + s);
#ifdef OWN
    dao_potential_checkpoint();
#endif
  }
#pragma omp parallel for schedule(static)
  for (int i = 0; i < 1024; i++)
    field[i] += weight(i);
}

int main(void) {
  for (int s = 0; s < 4; s++) {
    dao_potential_checkpoint();
    step(s);
  }
  return 0;
}
// HELD: @[[LOC:dao.str.[0-9]+]] = {{.*}}c"{{.*}}omp_held_region.c:18\00"
// HELD-LABEL: define internal void @step.omp_outlined(
// HELD: call void @dao_omp_begin(
// HELD-NEXT: call void @dao_omp_hold_begin(ptr @[[LOC]])
// HELD: call void @dao_omp_hold_end()
// HELD-NEXT: call void @dao_omp_end(
// HELD-LABEL: define internal void @step.omp_outlined.1(
// HELD-NOT: dao_omp_hold
// HELD: ret void
// OWN: omp_held_region.c:18{{.*}}a worksharing loop with a dynamic, guided, runtime or ordered schedule in a parallel region that contains a checkpoint marker is not supported
