; The external-function table matches declarations by name and type: a
; declaration of a known name with another type is not recognised (treated
; as unknown, so its call is a labelled call site) and reported with
; DAO_REMARKS=1; the same call with the expected type is not a site.
; RUN: DAO_REMARKS=1 %opt %s -o /dev/null 2> rem.txt; %FileCheck %s < rem.txt
; CHECK: 'omp_get_thread_num' is declared with type 'i32 (i32)', not one the pass knows (i32 ()): calls to it are treated as calls to an unknown function
; CHECK-NOT: declared with type
; CHECK: call site 1 in 'main' (calls 'omp_get_thread_num')
; CHECK-NEXT: candidate 2 in 'main'
; CHECK-NEXT: 1 instrumented functions, 2 labelled sites
declare i32 @omp_get_thread_num(i32)
declare double @sqrt(double)
declare void @dao_potential_checkpoint()

define i32 @main() {
entry:
  %t = call i32 @omp_get_thread_num(i32 0)
  %r = call double @sqrt(double 2.0)
  call void @dao_potential_checkpoint()
  %c = fptosi double %r to i32
  %s = add i32 %t, %c
  ret i32 %s
}
