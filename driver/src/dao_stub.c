/* No-op versions of the dao marker calls, linked by `dao fc --dao-no-pass`.
 * C code gets macros from dao.h with DAO_DISABLE; Fortran's `use dao` always
 * calls these symbols, so the clean baseline build links these empty bodies
 * instead of the runtime. */
void dao_potential_checkpoint(void) {}
void dao_checkpoint_now(void) {}
