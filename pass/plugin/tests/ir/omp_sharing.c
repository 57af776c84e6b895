// The data-sharing roles of clang's outlining, through the remarks. For
// each parallel-region site the remark lists what the master saves with
// the enclosing function's live set at the fork. For each marker in an
// outlined function it lists what every thread saves for itself (the
// private set); globals are shared and are saved by the master.
//   shared (sh, n, and the originals of red and lp): passed by address. In
//     the enclosing function's set at the fork, not in any private set.
//   private (pv), reduction (clang's private partial sum red<N>), lastprivate
//     (clang's private copy lp<N>): locals of the outlined function. In the
//     private set, and not in the set at the fork.
//   firstprivate (fp): passed by value (an i64 operand of the fork). The
//     master saves that value at the fork label, not its `fp.addr` stack
//     object; each thread saves its own copy `fp.addr`.
// IN* checks that a variable is in the set. OUT* checks that it is not in
// the other set: each OUT*-NOT covers exactly one bracketed list, brackets included.
// -O0 keeps the roles in named stack objects. At -O2 private scalars are SSA
// values (pv.<N>) and the reduction's partial sum is an unnamed value, so
// the IR check pins that it is spilled at the candidate.
// RUN: %clang -fopenmp -O0 -gline-tables-only %s | DAO_REMARKS=1 %opt -o /dev/null 2> omp_sharing.O0.txt
// RUN: %FileCheck %s --check-prefixes=IN,IN0 < omp_sharing.O0.txt
// RUN: %FileCheck %s --check-prefixes=OUT,OUT0 < omp_sharing.O0.txt
// RUN: %clang -fopenmp -O2 -gline-tables-only %s | DAO_REMARKS=1 %opt -o /dev/null 2> omp_sharing.O2.txt
// RUN: %FileCheck %s --check-prefixes=IN,IN2 < omp_sharing.O2.txt
// RUN: %FileCheck %s --check-prefixes=OUT,OUT2 < omp_sharing.O2.txt
// RUN: %clang -fopenmp -O0 %s | %opt | %FileCheck %s --check-prefix=IR0
// RUN: %clang -fopenmp -O2 %s | %opt | %FileCheck %s --check-prefix=IR2
#include "dao.h"
#include <omp.h>
double scale = 1.5;
double roles(int n, double fp) {
  double sh[64];
  double pv;
  double red = 0;
  double lp = 0;
  for (int k = 0; k < 64; k++) sh[k] = k;
#pragma omp parallel firstprivate(fp) private(pv) shared(sh) reduction(+:red)
  {
    pv = omp_get_thread_num();
    for (int it = 0; it < n; it++) {
      red += pv * sh[it % 64];
      dao_potential_checkpoint();
      pv += fp * scale;
    }
  }
#pragma omp parallel for lastprivate(lp) schedule(static)
  for (int i = 0; i < n; i++) {
    lp = sh[i % 64] * 2;
    dao_potential_checkpoint();
    lp += scale;
  }
  return red + lp + sh[1];
}

// The master at the two forks (same at -O0 and -O2): the shared locals and
// the originals of the reduction and lastprivate variables, plus one 8-byte
// value at the first fork (fp, by value); the global `scale`.
// IN: omp_sharing.c:36: parallel region 1 in 'roles' (outlined 'roles.omp_outlined'): live: 1 values (8 B) [tmp0], 4 stack objects (532 B) [n.addr, sh, red, lp], 1 globals (8 B) [scale]
// IN: omp_sharing.c:45: parallel region 2 in 'roles' (outlined 'roles.omp_outlined.1'): live: 0 values (0 B) [], 4 stack objects (532 B) [n.addr, sh, red, lp], 1 globals (8 B) [scale]
// OUT: omp_sharing.c:36: parallel region 1 in 'roles' (outlined 'roles.omp_outlined'): live: {{.*}} stack objects ({{[0-9]+}} B)
// OUT-NOT: {{[[ ](pv|fp.addr|fp|k)[],]}}
// OUT-SAME: , 1 globals
// OUT: omp_sharing.c:45: parallel region 2 in 'roles'{{.*}} stack objects ({{[0-9]+}} B)
// OUT-NOT: {{[[ ](pv|fp.addr|fp|k|i)[],]}}
// OUT-SAME: , 1 globals

// Region 1, every thread: its firstprivate copy, private, reduction partial
// sum and loop counter; the shared global under "shared".
// IN0: omp_sharing.c:41: candidate 1 in 'roles.omp_outlined'; private, saved by every thread of the team: live: {{.*}}, {{[0-9]+}} stack objects ({{[0-9]+}} B) [{{[^]]*}}fp.addr, pv, red{{[0-9]+}}, it{{[],]}}
// IN0-SAME: ; shared, saved by the master with the live set of the enclosing function at the fork: 1 globals (8 B) [scale]
// IN2: omp_sharing.c:41: candidate 1 in 'roles.omp_outlined'; private, saved by every thread of the team: live: 4 values (28 B) [{{[^]]*}}it.{{[0-9]+}}, pv.{{[0-9]+}}, {{[^]]*}}], 0 stack objects (0 B) []
// IN2-SAME: ; shared, saved by the master with the live set of the enclosing function at the fork: 1 globals (8 B) [scale]
// OUT0: omp_sharing.c:41: candidate 1 in 'roles.omp_outlined'; private{{.*}} stack objects ({{[0-9]+}} B)
// OUT0-NOT: {{[[ ](sh|sh.addr|n.addr|red|red.addr|lp|scale)[],]}}
// OUT0-SAME: ; shared
// OUT2: omp_sharing.c:41: candidate 1 in 'roles.omp_outlined'; private{{.*}} stack objects ({{[0-9]+}} B)
// OUT2-NOT: {{[[ ](sh|n.addr|red|lp|scale)[],]}}
// OUT2-SAME: ; shared

// Region 2 (`parallel for lastprivate`): the private copy of lp, not the
// original; at -O2 lp's value is folded into the loaded element.
// IN0: omp_sharing.c:48: candidate 1 in 'roles.omp_outlined.1'; private, saved by every thread of the team: live: {{.*}}, {{[0-9]+}} stack objects ({{[0-9]+}} B) [{{[^]]*}}.omp.iv, {{[^]]*}}lp{{[0-9]+}}]; shared{{.*}}: 1 globals (8 B) [scale]
// IN2: omp_sharing.c:48: candidate 1 in 'roles.omp_outlined.1'; private, saved by every thread of the team: live: {{[0-9]+}} values ({{[0-9]+}} B) [{{[^]]*}}.omp.iv.{{[0-9]+}}{{[^]]*}}]{{.*}}; shared{{.*}}: 1 globals (8 B) [scale]
// OUT0: omp_sharing.c:48: candidate 1 in 'roles.omp_outlined.1'; private{{.*}} stack objects ({{[0-9]+}} B)
// OUT0-NOT: {{[[ ](sh|sh.addr|n.addr|lp|lp.addr|red|scale)[],]}}
// OUT0-SAME: ; shared
// OUT2: omp_sharing.c:48: candidate 1 in 'roles.omp_outlined.1'; private{{.*}} stack objects ({{[0-9]+}} B)
// OUT2-NOT: {{[[ ](sh|n.addr|lp|red|scale)[],]}}
// OUT2-SAME: ; shared
// IN: 3 instrumented functions, 6 labelled sites, 0 of them conservative (unknown reads)

// firstprivate by value, -O0: the i64 copy of fp is spilled at the label of
// the first fork, and the fork passes the value reloaded on restart.
// IR0-LABEL: define dso_local double @roles(
// IR0: [[FP:%[0-9]+]] = load i64, ptr
// IR0: store i32 1, ptr
// IR0-NEXT: [[SLOT:%[0-9]+]] = getelementptr inbounds i8, ptr %dao.slots, i64 0
// IR0-NEXT: store i64 [[FP]], ptr [[SLOT]], align 8
// IR0-NEXT: br label %dao.fork.1
// IR0: dao.fork.1:
// IR0-NEXT: [[FPR:%dao.demote[0-9.]*]] = phi i64 [ %dao.reload, %dao.restore.1 ], [ [[FP]], %{{.*}} ]
// IR0-NEXT: call void @dao_omp_fork(
// IR0-NEXT: call void (ptr, i32, ptr, ...) @__kmpc_fork_call(ptr @{{[0-9]+}}, i32 4, ptr @roles.omp_outlined, ptr %n.addr, ptr %{{[a-zA-Z._0-9]+}}, ptr %{{[a-zA-Z._0-9]+}}, i64 [[FPR]])
// IR0: dao.fork.2:
// IR0-NEXT: call void @dao_omp_fork(
// IR0-NEXT: call void (ptr, i32, ptr, ...) @__kmpc_fork_call(ptr @{{[0-9]+}}, i32 3, ptr @roles.omp_outlined.1, ptr %n.addr, ptr %{{[a-zA-Z._0-9]+}}, ptr %{{[a-zA-Z._0-9]+}})

// reduction, -O2: the running partial sum (an SSA value) is spilled on the
// candidate's path and merged back by a phi at the resume point.
// IR2-LABEL: define internal void @roles.omp_outlined(
// IR2: [[SUM:%[0-9]+]] = call double @llvm.fmuladd.f64(
// IR2: dao.resume.1:
// IR2-NEXT: phi double [ %dao.reload{{[0-9]*}}, %dao.restore.1 ], [ [[SUM]], %dao.candidate.1 ], [ [[SUM]], %for.body ]
// IR2: dao.candidate.1:
// IR2: store double [[SUM]], ptr
// IR2: call void @dao_candidate(ptr %dao.frame)
