// A module without markers and without main (a timer or random-number
// module): what code outside it may read after a checkpoint is listed in
// the module descriptor's `escaped_globals` (issue #31), so that the
// runtime saves it. `counter` and `seed` are statics read by functions other
// modules call; `base` only by a static function those reach; `scratch` is
// written whole before every read (its reader rewrites it first: dead);
// `table` is internal and only written (no one reads it: dead);
// `published` has its address stored in a global (escapes).
// `slot` is exported but read by no code here: a module that reads it by
// name lists it itself. -O2 folds `base` (never stored) into a constant
// and drops `scratch` and `table`.
// RUN: %clang -O0 %s | %opt | %FileCheck %s
// RUN: %clang -O2 %s | %opt | %FileCheck %s --check-prefix=O2
static long counter;
static unsigned long long seed = 88172645463325252ULL;
static double base = -1.0;
static double scratch[4];
static int table[8];
static int published;
int *slot = &published;

long st_next(void) { return ++counter; }

double st_random(void) {
  seed ^= seed << 13;
  return (double)(seed >> 11);
}

static double now(void) { return base + 1.0; }
double st_elapsed(void) { return now(); }

double st_scratch(double x) {
  for (int i = 0; i < 4; i++) scratch[i] = x * i;
  return scratch[0] + scratch[3];
}

void st_fill(int v) { table[v & 7] = v; }

// CHECK-DAG: @dao.str.0 = {{.*}} c"published\00"
// CHECK-DAG: @dao.str.1 = {{.*}} c"slot\00"
// CHECK-DAG: @dao.str.2 = {{.*}} c"counter\00"
// CHECK-DAG: @dao.str.3 = {{.*}} c"seed\00"
// CHECK-DAG: @dao.str.4 = {{.*}} c"scratch\00"
// CHECK-DAG: @dao.str.5 = {{.*}} c"table\00"
// CHECK-DAG: @dao.str.6 = {{.*}} c"base\00"
// CHECK-DAG: @dao.escaped = {{.*}} [4 x i32] [i32 0, i32 2, i32 3, i32 6]
// CHECK-DAG: @dao.module = {{.*}} i32 4, ptr @dao.escaped, i32 0, ptr null
// O2-DAG: @dao.str.0 = {{.*}} c"published\00"
// O2-DAG: @dao.str.2 = {{.*}} c"counter\00"
// O2-DAG: @dao.str.3 = {{.*}} c"seed\00"
// O2-DAG: @dao.escaped = {{.*}} [3 x i32] [i32 0, i32 2, i32 3]
