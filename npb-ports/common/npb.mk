# npb.mk -- the build rules shared by the CG and MG Makefiles (C and
# Fortran) of the dao NPB ports.  (BT and FT have their own self-contained
# Makefiles: one source file each, no npb_common.c.)
#
# The including Makefile sets, before `include`:
#   HERE     its own directory (with a trailing slash)
#   NPB_TOP  the npb-ports directory
#   BENCH    the benchmark: cg or mg (source $(HERE)$(BENCH).c or .F90)
#   NPB_LANG c or fortran
#   BENCH_EXTRA  (optional, Fortran) more sources of $(HERE), compiled in
#            this order after the common modules and before $(BENCH).F90
# and gets the targets `all` (default), `all-classes` and `clean`.
# C builds ../bin/$(BENCH).$(CLASS); Fortran builds ../bin/$(BENCH)_f.$(CLASS)
# (module files in $(HERE)mod.$(CLASS)).
#
# Honoured: CC, FC, CFLAGS, FFLAGS, CPPFLAGS, LDFLAGS, LDLIBS, OMPFLAGS,
# DAOFLAGS, DAO_INC, CLASS=S|W|A|B|C.
#
# Markers: with a plain compiler the markers are compiled out (DAOFLAGS
# defaults to -DDAO_DISABLE: the clean program); when the compiler command
# is the dao driver (CC="dao cc", FC="dao fc") DAOFLAGS defaults to empty and
# the markers stay.  Set DAOFLAGS yourself to force either way (DAOFLAGS=
# keeps the markers with any compiler; then link the dao runtime via
# LDFLAGS/LDLIBS).
#
# Every build is forced (FORCE): a change of compiler or flags must never
# reuse a stale binary.

ifeq ($(origin CC),default)
CC = clang-19 -fopenmp
endif
ifeq ($(origin FC),default)
FC = flang-new-19 -fopenmp
endif
ifeq ($(origin CFLAGS),undefined)
CFLAGS = -O3
endif
ifeq ($(origin FFLAGS),undefined)
FFLAGS = -O3
endif
CLASS    ?= A
OMPFLAGS ?= -fopenmp

NPB_BIN    := $(NPB_TOP)/bin
NPB_COMMON := $(NPB_TOP)/common
DAO_INC    ?= $(abspath $(NPB_TOP)/../runtime/include)

ifeq ($(NPB_LANG),fortran)
NPB_COMPILER = $(FC)
NPB_NAME    := $(BENCH)_f
else
NPB_COMPILER = $(CC)
NPB_NAME    := $(BENCH)
endif

# markers in (dao driver) or out (any other compiler), unless DAOFLAGS is set
ifeq ($(filter dao,$(notdir $(firstword $(NPB_COMPILER)))),dao)
DAOFLAGS ?=
else
DAOFLAGS ?= -DDAO_DISABLE
endif

TARGET := $(NPB_BIN)/$(NPB_NAME).$(CLASS)

.PHONY: all all-classes clean FORCE
all: $(TARGET)

$(TARGET): FORCE
	@case "$(CLASS)" in S|W|A|B|C) ;; *) echo "CLASS must be S, W, A, B or C" >&2; exit 2;; esac
	@mkdir -p $(NPB_BIN)
ifeq ($(NPB_LANG),fortran)
	@mkdir -p $(HERE)mod.$(CLASS)
	$(FC) $(OMPFLAGS) $(CPPFLAGS) $(DAOFLAGS) -I$(DAO_INC) -DCLASS_$(CLASS) $(FFLAGS) \
	    -J$(HERE)mod.$(CLASS) -o $@ \
	    $(NPB_COMMON)/dao_markers.F90 $(NPB_COMMON)/npb_random.F90 \
	    $(addprefix $(HERE),$(BENCH_EXTRA)) $(HERE)$(BENCH).F90 \
	    $(LDFLAGS) $(LDLIBS)
else
	$(CC) $(OMPFLAGS) $(CPPFLAGS) $(DAOFLAGS) -I$(NPB_COMMON) -I$(DAO_INC) -DCLASS_$(CLASS) \
	    $(CFLAGS) -o $@ $(HERE)$(BENCH).c $(NPB_COMMON)/npb_common.c $(LDFLAGS) $(LDLIBS) -lm
endif

all-classes:
	for c in S W A B C; do $(MAKE) -f $(HERE)Makefile CLASS=$$c || exit 1; done

clean:
	rm -f $(foreach c,S W A B C,$(NPB_BIN)/$(NPB_NAME).$(c))
ifeq ($(NPB_LANG),fortran)
	rm -rf $(foreach c,S W A B C,$(HERE)mod.$(c))
endif

FORCE:
