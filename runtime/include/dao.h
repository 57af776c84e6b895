/* dao.h -- the user-facing API of dao, compiler-assisted checkpoint/restart.
 *
 * Mark candidate checkpoint positions with dao_potential_checkpoint(). Build
 * with `dao cc` / `dao c++` (or clang-19 -fpass-plugin=libdao.so and link libdao_rt.a).
 * At run time the runtime decides, from DAO_INTERVAL / DAO_MTBF / DAO_EVERY,
 * whether a candidate reached actually writes a checkpoint.
 *
 * Define DAO_DISABLE before including this header (or pass -DDAO_DISABLE) to
 * compile every marker out: the program is then exactly the clean program.
 */
#ifndef DAO_H
#define DAO_H

#ifdef __cplusplus
extern "C" {
#endif

#ifdef DAO_DISABLE
#define dao_potential_checkpoint() ((void)0)
#define dao_checkpoint_now() ((void)0)
#else
/* The markers never throw (C++): a call of one is a plain call, never an
 * invoke, wherever it stands (inside try, among destructors, in a parallel
 * region). */
#if defined(__GNUC__) || defined(__clang__)
#define DAO_NOTHROW __attribute__((__nothrow__))
#else
#define DAO_NOTHROW
#endif
/* A candidate position: a checkpoint is written here when the policy says so. */
void dao_potential_checkpoint(void) DAO_NOTHROW;
/* A forced checkpoint: always written (subject to DAO_DIR being set). */
void dao_checkpoint_now(void) DAO_NOTHROW;
#endif

#ifdef __cplusplus
}
#endif
#endif /* DAO_H */
