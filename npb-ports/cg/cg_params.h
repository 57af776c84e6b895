/* cg_params.h -- NPB CG problem classes (fixed at compile time with
 * -DCLASS_S, -DCLASS_W, -DCLASS_A, -DCLASS_B or -DCLASS_C). */
#ifndef CG_PARAMS_H
#define CG_PARAMS_H

#if defined(CLASS_S)
#define CLASS_CHAR  'S'
#define NA          1400
#define NONZER      7
#define NITER       15
#define SHIFT       10.0
#define ZETA_VERIFY 8.5971775078648
#elif defined(CLASS_W)
#define CLASS_CHAR  'W'
#define NA          7000
#define NONZER      8
#define NITER       15
#define SHIFT       12.0
#define ZETA_VERIFY 10.362595087124
#elif defined(CLASS_A)
#define CLASS_CHAR  'A'
#define NA          14000
#define NONZER      11
#define NITER       15
#define SHIFT       20.0
#define ZETA_VERIFY 17.130235054029
#elif defined(CLASS_B)
#define CLASS_CHAR  'B'
#define NA          75000
#define NONZER      13
#define NITER       75
#define SHIFT       60.0
#define ZETA_VERIFY 22.712745482631
#elif defined(CLASS_C)
#define CLASS_CHAR  'C'
#define NA          150000
#define NONZER      15
#define NITER       75
#define SHIFT       110.0
#define ZETA_VERIFY 28.973605592845
#else
#error "define one of CLASS_S, CLASS_W, CLASS_A, CLASS_B, CLASS_C"
#endif

#define RCOND      0.1
#define CGITMAX    25
#define NZ_MAX     ((long)NA * (NONZER + 1) * (NONZER + 1))
#define EPSILON_CG 1.0e-10

#endif
