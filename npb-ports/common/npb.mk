# npb.mk -- settings shared by the CG/MG Makefiles of the dao NPB ports.
# The including Makefile sets NPB_TOP (the npb-ports directory) first.
#
# Honoured: CC, FC, CFLAGS, FFLAGS, CPPFLAGS, LDFLAGS, LDLIBS, OMPFLAGS,
# DAOFLAGS, CLASS=S|W|A|B|C.
#
# Markers: with a plain compiler the markers are compiled out (DAOFLAGS
# defaults to -DDAO_DISABLE: the clean program); when the compiler command
# is the dao driver (CC="dao cc", FC="dao ...") DAOFLAGS defaults to empty and
# the markers stay.  Set DAOFLAGS yourself to force either way (DAOFLAGS=
# keeps the markers with any compiler; then link the dao runtime via
# LDFLAGS/LDLIBS).

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

# $(call npb_is_dao,COMMAND) -> "dao" when COMMAND starts with the dao driver
npb_is_dao = $(filter dao,$(notdir $(firstword $(1))))

npb_check_class = case "$(CLASS)" in S|W|A|B|C) ;; *) echo "CLASS must be S, W, A, B or C" >&2; exit 2;; esac
