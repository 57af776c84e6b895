// A module with no marker and no main is left as it is (apart from heap
// calls, which are routed to the dao heap in every module: see
// docs/design.md). This one allocates nothing, so it must be identical.
// RUN: %clang -O2 %s > plain.ll && opt-19 -S -passes=verify plain.ll > base.ll && %opt plain.ll > after.ll && diff base.ll after.ll
// RUN: %clang -O2 %s | %opt | %FileCheck %s
double norm(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i] * x[i];
  return s;
}
// CHECK-NOT: dao_
