/* mg_params.h -- NPB MG problem classes (fixed at compile time with
 * -DCLASS_S, -DCLASS_W, -DCLASS_A, -DCLASS_B or -DCLASS_C). */
#ifndef MG_PARAMS_H
#define MG_PARAMS_H

#if defined(CLASS_S)
#define CLASS_CHAR   'S'
#define NX_TOP       32
#define LT_TOP       5
#define NIT          4
#define RNM2_VERIFY  0.5307707005734e-04
#elif defined(CLASS_W)
#define CLASS_CHAR   'W'
#define NX_TOP       128
#define LT_TOP       7
#define NIT          4
#define RNM2_VERIFY  0.6467329375339e-05
#elif defined(CLASS_A)
#define CLASS_CHAR   'A'
#define NX_TOP       256
#define LT_TOP       8
#define NIT          4
#define RNM2_VERIFY  0.2433365309069e-05
#elif defined(CLASS_B)
#define CLASS_CHAR   'B'
#define NX_TOP       256
#define LT_TOP       8
#define NIT          20
#define RNM2_VERIFY  0.1800564401355e-05
#elif defined(CLASS_C)
#define CLASS_CHAR   'C'
#define NX_TOP       512
#define LT_TOP       9
#define NIT          20
#define RNM2_VERIFY  0.5706732285740e-06
#else
#error "define one of CLASS_S, CLASS_W, CLASS_A, CLASS_B, CLASS_C"
#endif

/* the cubic grid of the specification */
#define NY_TOP       NX_TOP
#define NZ_TOP       NX_TOP
#define NM           (NX_TOP + 2)     /* longest grid line incl. ghosts */
#define LB           1                /* coarsest level */
#define EPSILON_MG   1.0e-8

#endif
