# pbdlab — build, tests, experiments, plots.
# The README's two commands: `make experiments` and `make test`. Both install what is
# missing first (scripts/deps.sh), then take their flags from pkg-config/gsl-config.

CC      ?= cc
BUILD   ?= build
OPT     ?= -O2 -g
WARN    := -std=c11 -Wall -Wextra -Werror -D_XOPEN_SOURCE=700 -I.
OMP     ?= -fopenmp
CFLAGS  += $(OPT) $(WARN) $(OMP) $(SAN_FLAGS)
LDFLAGS += $(OMP) $(SAN_FLAGS)
QUICK   ?= 0
# The BLAS of the Newton reference's factorisations: openblas (Debian's libopenblas0-openmp,
# linked by path ahead of CHOLMOD) or netlib (the system's libblas.so.3 alone).
BLAS    ?= openblas
export BLAS

# The rooms (README.md "The map") make two libraries: the physics, libpbd.a (constraints,
# solver and its inner rooms, analysis: no HDF5, no option parser, no scenes), and the
# harness, libpbdlab-harness.a (experiments/ but the programs' own files) on top of it.
PHYS_DIRS := solver constraints analysis
LIB_DIRS := $(PHYS_DIRS) experiments
PROGRAMS := $(wildcard experiments/programs/pbd_*.c)
PROG_SRC := $(filter-out $(PROGRAMS),$(wildcard experiments/programs/*.c))
PHYS_SRC := $(shell find $(PHYS_DIRS) -name '*.c' | sort)
HARNESS_SRC := $(filter-out experiments/programs/%,$(shell find experiments -name '*.c' | sort))
PROG_OBJ := $(PROG_SRC:%.c=$(BUILD)/obj/%.o)
TEST_SRC := $(wildcard tests/*.c)
PHYS_OBJ := $(PHYS_SRC:%.c=$(BUILD)/obj/%.o)
HARNESS_OBJ := $(HARNESS_SRC:%.c=$(BUILD)/obj/%.o)
# what the programs and the tests link: the harness first, then the physics it uses
LIBS     := $(BUILD)/libpbdlab-harness.a $(BUILD)/libpbd.a
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/obj/%.o)
BINS     := $(patsubst %.c,$(BUILD)/%,$(subst _,-,$(notdir $(PROGRAMS))))

NO_DEPS_GOALS := clean help deps uninstall check-doc-links bench-table
# Every make that builds first runs scripts/deps.sh: a cheap check (as root it installs what
# is missing). If something is still missing, deps.sh's last line says what to run and make
# stops right there, quietly: question mode (-q) runs no recipe, prints nothing, exits 1.
# build/config.mk is regenerated whenever what deps.sh found (build/deps.found) changes.
# make deps is that check and nothing else; make fresh-box needs nothing on this machine.
NO_DEPS_GOALS := $(filter-out deps,$(NO_DEPS_GOALS)) fresh-box
ifneq ($(filter-out $(NO_DEPS_GOALS),$(or $(MAKECMDGOALS),all)),)
ifeq ($(shell CC='$(CC)' BLAS='$(BLAS)' sh scripts/deps.sh >&2; echo $$?),0)
include build/config.mk
else
MAKEFLAGS += -q
$(or $(MAKECMDGOALS),all): pbd-deps-missing
pbd-deps-missing: ; @:
build/deps.found: ;
.PHONY: pbd-deps-missing
endif
endif

.PHONY: soak fuzz all test asan experiments gradcheck plots report bench bench-repeat clean deps help install \
  check-paraview check-report test-plots test-slurm \
  uninstall test-install check-signals
.DEFAULT_GOAL := all
.SECONDARY:

help:
	@echo "make [all]         build libpbd.a, libpbdlab-harness.a, the programs and the test runner"
	@echo "make experiments   run the experiment suite and build the report (QUICK=1: reduced)"
	@echo "                   RUN_TIMEOUT=S: every run's time limit (default: 10 x its last duration)"
	@echo "                   SCHEDULER=slurm [SLURM_ARGS=...]: as Slurm job arrays; RESULTS=DIR"
	@echo "                   make -k experiments: every run tried, the failed ones named"
	@echo "make test          build and run the CUnit tests"
	@echo "make asan          the tests under AddressSanitizer + UBSan"
	@echo "make gradcheck     check every constraint's gradient against finite differences"
	@echo "make plots|report  regenerate figures and RESULTS/report.html (default data/results)"
	@echo "                   ALLOW_MISSING=1: from a partial sweep, naming what is missing and why"
	@echo "make check-report  RESULTS/report.html in headless Chromium: images, widths, nan/inf, series; screenshots"
	@echo "make test-plots    every figure script on every run alone and on narrowed sweeps"
	@echo "make test-slurm    make experiments SCHEDULER=slurm on a local one-node Slurm vs local"
	@echo "make bench         performance table (data/results/bench.csv), appended to data/measurements/"
	@echo "make bench-repeat  the bench's targets over 9 runs per SIMD width, met in how many"
	@echo "make bench-table   the latest measurements (data/measurements/*.csv) and their trend"
	@echo "make fuzz          libFuzzer on the CLI parser, the OBJ/TetGen loaders and the HDF5 readers (clang)"
	@echo "make check-signals SIGTERM/INT/HUP/KILL at any moment: exit within 2 s, nothing or a readable file"
	@echo "make soak          every standard scene for 10^5 steps: finite and bounded"
	@echo "make check-paraview every scene's XDMF sidecar in ParaView's default reader"
	@echo "make install       both libraries, headers, programs, pbdlab.pc, pbdlab-harness.pc into PREFIX"
	@echo "make uninstall     remove what make install put there (same PREFIX, DESTDIR)"
	@echo "make test-install  install into build/test-install, build and check an example against it"
	@echo "make fresh-box     as root: the README's make test on a bare Debian 12 (debootstrap, chroot)"
	@echo "make check-doc-links  every relative Markdown link and FILE.md \"Section\" citation resolves;"
	@echo "                   no issue number outside tests/, no comment citing a missing path"
	@echo "make test-new-constraint  constraints/README.md's recipe with a throw-away type, checked"
	@echo "make test-new-method  solver/README.md's recipe with a throw-away method, checked"
	@echo "make newton-sweep  Newton on every scene x material x E 1e3..1e11: converges or is refused up front"
	@echo "make deps          check that everything the build needs is installed (scripts/deps.sh)"
	@echo "make clean         remove build/ (results in data/results stay)"
	@echo "make help          this list"

# The dependencies' flags (scripts/configure.sh); make includes this file, then restarts.
build/config.mk: build/deps.found scripts/deps.sh scripts/configure.sh
	@BLAS='$(BLAS)' sh scripts/configure.sh > $@.tmp && mv $@.tmp $@

deps:
	@echo "pbdlab: everything the build needs is installed (scripts/deps.sh; flags: build/config.mk)"

# The README's set-up on a bare Debian 12 in a chroot, as root and as a user (needs root).
.PHONY: fresh-box
fresh-box:
	@bash scripts/fresh-box.sh

all: $(LIBS) $(BINS) $(BUILD)/pbd-tests

# Every object depends on $(BUILD)/flags.stamp, which holds the compiler and flags and is
# rewritten only when they change (OPT, OMP, SAN_FLAGS, CFLAGS): a change rebuilds every
# object, so the objects linked are all built with the flags that result files record.
PBD_FLAGS := $(CC) $(CFLAGS)
$(BUILD)/flags.stamp: FORCE
	@mkdir -p $(dir $@)
	@echo '$(PBD_FLAGS)' | cmp -s - $@ || echo '$(PBD_FLAGS)' > $@

# Each object depends on the headers it includes, as the compiler lists them (-MMD -MP:
# build/obj/**/*.d), so touching one header rebuilds what includes it and nothing else. The
# libraries' include directories are system ones (-isystem): -MMD leaves them out, so
# reinstalling a -dev package rebuilds nothing. The physics objects see only the physics'
# dependencies (PHYS_CFLAGS: no HDF5 or CUnit directory), so none can include their headers.
OBJ_DEP_CFLAGS = $(DEP_CFLAGS)
$(PHYS_OBJ): OBJ_DEP_CFLAGS = $(PHYS_CFLAGS)
$(BUILD)/obj/%.o: %.c build/config.mk $(BUILD)/flags.stamp
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(patsubst -I%,-isystem %,$(OBJ_DEP_CFLAGS)) -MMD -MP -c $< -o $@
OBJ_DEPS := $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
-include $(OBJ_DEPS)
# an object without its .d (built before the lists, or the .d lost) is built again
$(filter-out $(OBJ_DEPS:.d=.o),$(shell find $(BUILD)/obj -name '*.o' 2>/dev/null)): FORCE

# Provenance written into every result file (experiments/log/h5log_attrs.c): the revision,
# marked -dirty-<hash of the diff> for uncommitted changes (scripts/git-revision.sh), and
# the flags above (plus constraints/' -fno-math-errno below).
PBD_GIT_REV := $(shell sh scripts/git-revision.sh 2>/dev/null || echo unknown)
$(BUILD)/obj/experiments/log/h5log_attrs.o: CFLAGS += -DPBD_GIT_REVISION='"$(PBD_GIT_REV)"' \
  -DPBD_CFLAGS='"$(PBD_FLAGS); constraints/: -fno-math-errno"'
$(BUILD)/git-rev.stamp: FORCE
	@mkdir -p $(dir $@)
	@echo '$(PBD_GIT_REV)' | cmp -s - $@ || echo '$(PBD_GIT_REV)' > $@
$(BUILD)/obj/experiments/log/h5log_attrs.o: $(BUILD)/git-rev.stamp
.PHONY: FORCE
FORCE:

$(BUILD)/libpbd.a: $(PHYS_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/libpbdlab-harness.a: $(HARNESS_OBJ)
	@rm -f $@
	ar rcs $@ $^

# A program: its main, the programs' shared helpers (bench table, yardstick), both libraries.
$(BUILD)/pbd-%: $(BUILD)/obj/experiments/programs/pbd_%.o $(PROG_OBJ) $(LIBS)
	$(CC) $(LDFLAGS) $< $(PROG_OBJ) $(LIBS) $(DEP_LIBS) -o $@

$(BUILD)/pbd-tests: $(TEST_OBJ) $(LIBS)
	$(CC) $(LDFLAGS) $(TEST_OBJ) $(LIBS) $(CUNIT_LIBS) $(DEP_LIBS) -o $@

test: $(BUILD)/pbd-tests $(BINS)
	sh scripts/check-includes.sh
	cd $(CURDIR) && PBD_BIN=$(BUILD) $(BUILD)/pbd-tests

asan:
	$(MAKE) BUILD=$(BUILD)/asan OPT="-O1 -g" \
	  SAN_FLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" test

gradcheck: $(BUILD)/pbd-gradcheck
	@mkdir -p data/results
	$(BUILD)/pbd-gradcheck

# The suite into RESULTS: on this machine (SCHEDULER=local) or as Slurm job arrays with a
# dependent merge/report job (SCHEDULER=slurm; SLURM_ARGS e.g. "--partition=cpu --account=x").
# Locally each run has a time limit (RUN_TIMEOUT=S for every run, RUN_TIMEOUT_FACTOR,
# RUN_TIMEOUT_MIN, RUN_TIMEOUT_DEFAULT, RUN_TIMEOUT_GRACE: experiments/drivers/suite_limits.sh);
# the figures-and-report stage's seconds are recorded for the next suite's estimate.
RESULTS   ?= data/results
SCHEDULER ?= local
SLURM_ARGS ?=
experiments: $(BINS)
ifeq ($(SCHEDULER),local)
	@mkdir -p $(RESULTS)
	sh experiments/drivers/run_all.sh $(BUILD) $(QUICK) $(RESULTS)
	@t=$$(date +%s); $(MAKE) --no-print-directory report RESULTS=$(RESULTS) && \
	  echo "quick=$(QUICK) report $$(( $$(date +%s) - t ))" >> $(RESULTS)/.suite-seconds
else ifeq ($(SCHEDULER),slurm)
	sh experiments/drivers/slurm.sh submit $(BUILD) $(QUICK) $(RESULTS) $(SLURM_ARGS)
else
	@echo "make experiments: SCHEDULER: expected local or slurm, found '$(SCHEDULER)'" >&2; exit 2
endif

# Figures and report from whatever results exist in RESULTS (analysis/make_plots.sh, pbd-report).
plots: $(BINS)
	sh analysis/make_plots.sh $(BUILD) $(RESULTS)

report: plots
	$(BUILD)/pbd-report $(RESULTS)

# The report in headless Chromium at 1400 px: images load, tables fit, no name broken, no raw
# nan/inf, every figure draws a series; a screenshot per experiment into RESULTS/screenshots/;
# planted defects must fail (scripts/check-report.sh, scripts/check_report.py). Installs
# Debian's chromium, chromium-driver and python3-selenium when missing (as root).
check-report:
	sh scripts/check-report.sh $(RESULTS)

# Every figure script draws any subset of its sweep: each run alone, the whole sweep, narrowed
# sweeps (analysis/test_plot_subsets.sh; ~1 min).
test-plots: $(BINS)
	sh analysis/test_plot_subsets.sh $(BUILD)

# make experiments SCHEDULER=slurm against a real single-node Slurm on loopback (scripts/
# slurm-local.sh, scripts/test-slurm.sh): the same files as a local QUICK run, and a cancelled
# task resubmitted alone. Installs Debian's slurmctld, slurmd, slurm-client, munge, hdf5-tools.
test-slurm: $(BINS)
	sh scripts/slurm-local.sh run $(BUILD)/slurm-local -- sh scripts/test-slurm.sh $(BUILD)

# The performance table (experiments/programs/README.md "Performance"): pbd-bench built with
# BENCH_OPT in its own build directory (the default build stays portable); BENCH_ARGS e.g.
# --quick. Every row's ms per step (min, median) is appended to BENCH_HISTORY, the
# measurements' history (data/README.md "Measurements"; make bench-table prints it).
BENCH_OPT ?= -O3 -march=native -ffp-contract=off -g
BENCH_HISTORY ?= data/measurements/bench.csv
export BENCH_HISTORY
bench:
	$(MAKE) BUILD=build/bench OPT="$(BENCH_OPT)" build/bench/pbd-bench
	build/bench/pbd-bench --history=$(BENCH_HISTORY) $(BENCH_ARGS)

# The latest rows of every CSV under data/measurements/ and each measurement's trend
# (scripts/bench-table.sh; BENCH_TABLE_ARGS e.g. "--what=cloth316 --last=20").
.PHONY: bench-table
bench-table:
	@sh scripts/bench-table.sh $(BENCH_TABLE_ARGS)

# The bench's targets over BENCH_RUNS runs at each SIMD width (BENCH_WIDTHS; default 8 and 4
# on AVX-512, the AVX2 path forced), with how many runs met each (scripts/bench-repeat.sh).
# Width 4 runs a build for AVX2 machines (BENCH_OPT_AVX2, x86-64-v3: no AVX-512 instruction
# outside the 8-lane kernels, as -march=native gives on an AVX2-only machine).
BENCH_RUNS ?= 9
BENCH_OPT_AVX2 ?= -O3 -march=x86-64-v3 -ffp-contract=off -g
bench-repeat:
	$(MAKE) BUILD=build/bench OPT="$(BENCH_OPT)" build/bench/pbd-bench
	$(MAKE) BUILD=build/bench-avx2 OPT="$(BENCH_OPT_AVX2)" build/bench-avx2/pbd-bench
	BENCH_AVX2=build/bench-avx2/pbd-bench sh scripts/bench-repeat.sh $(BENCH_RUNS) "$(BENCH_WIDTHS)"

# The kernels' sqrt never needs errno: without it the compiler inlines sqrt (no call path).
$(BUILD)/obj/constraints/%.o: CFLAGS += -fno-math-errno

# The XDMF sidecars in ParaView's own reader (Debian's python3-paraview, installed when
# missing): every scene's sidecar opened with OpenDataFile, points, cells and per-frame bounds
# equal to /frames (scripts/check-paraview.sh, scripts/check_paraview.py).
check-paraview: $(BINS)
	sh scripts/check-paraview.sh $(BUILD)

# A run killed at any moment: SIGTERM in a 1000² cloth's set-up and inside a 400²
# cloth's Newton factorisation stops it within 2 s; SIGHUP/SIGINT keep the steps; SIGKILL
# leaves a readable file (tests/check-signals.sh; about a minute).
check-signals: $(BINS)
	sh tests/check-signals.sh $(BUILD)

# Every standard scene for 10^5 steps: finite and bounded (not part of `make test`).
soak: $(BUILD)/pbd-soak
	$(BUILD)/pbd-soak

# Fuzzing with libFuzzer (clang): each target in tests/fuzz/ runs FUZZ_RUNS inputs (at most
# FUZZ_SECONDS) from its seed corpus tests/data/fuzz/<target>/; crashes go to build/fuzz/.
FUZZ_RUNS ?= 1000000
FUZZ_SECONDS ?= 600
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
fuzz:
	$(MAKE) BUILD=build/fuzz CC=clang OPT="-O1 -g" \
	  SAN_FLAGS="-fsanitize=fuzzer-no-link,address,undefined" build/fuzz/libpbdlab-harness.a build/fuzz/libpbd.a
	@for t in $(FUZZ_TARGETS); do \
	  clang -O1 -g -I. -fopenmp -fsanitize=fuzzer,address,undefined $(DEP_CFLAGS) tests/fuzz/$$t.c \
	    build/fuzz/libpbdlab-harness.a build/fuzz/libpbd.a $(DEP_LIBS) -o build/fuzz/$$t || exit 1; \
	  mkdir -p build/fuzz/corpus-$$t; \
	  echo "fuzz: $$t, $(FUZZ_RUNS) runs or $(FUZZ_SECONDS) s"; \
	  build/fuzz/$$t -runs=$(FUZZ_RUNS) -max_total_time=$(FUZZ_SECONDS) -artifact_prefix=build/fuzz/$$t- \
	    build/fuzz/corpus-$$t tests/data/fuzz/$$(echo $$t | sed 's/fuzz_//') \
	    > build/fuzz/$$t.log 2>&1 || { tail -20 build/fuzz/$$t.log; exit 1; }; \
	  grep -E '^Done|#[0-9]+.*DONE' build/fuzz/$$t.log | tail -1; \
	done

# ---- install (solver/README.md "Linking pbdlab") ------------------------------------------
# Both libraries (static only: no -fPIC build, no soname, and no exported private symbols),
# the rooms' public headers (pbd.h, pbd_*.h) in their root-relative layout under
# include/pbdlab/, their includes of each other rewritten from "solver/pbd.h" to
# "pbdlab/solver/pbd.h" so that Cflags is -I${includedir} alone and a user writes
# #include <pbdlab/solver/pbd.h> (no generic solver/ on the include path), the programs, and
# two pkg-config files: pbdlab (libpbd.a, the physics alone) and pbdlab-harness
# (libpbdlab-harness.a and HDF5, Requires: pbdlab).
# As the libraries are static only, their dependencies (the flags this build linked with:
# OpenMP, GSL, SuiteSparse and its BLAS, SLEEF, -lm; HDF5 with hdf5_hl for the harness) are in
# Libs, so that `pkg-config --libs` links with or without --static. No installed header
# includes a dependency's header.
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
INSTALL    ?= install
PUBLIC_HEADERS := $(shell find $(LIB_DIRS) -name pbd.h -o -name 'pbd_*.h' | sort)
PBD_VERSION_STR := $(shell sed -n 's/^\#define PBD_VERSION "\(.*\)"/\1/p' solver/pbd.h)
comma := ,
pc_dir = $(patsubst $(PREFIX)/%,$${prefix}/%,$(1))
# a pkg-config file's first lines: $(call pc_head,NAME,DESCRIPTION)
pc_head = echo 'prefix=$(PREFIX)'; echo 'libdir=$(call pc_dir,$(LIBDIR))'; \
  echo 'includedir=$(call pc_dir,$(INCLUDEDIR))'; echo; echo 'Name: $(1)'; \
  echo 'Description: $(2)'; echo 'Version: $(PBD_VERSION_STR)'; echo 'Cflags: -I$${includedir}'; \
  echo '\# static library only: its dependencies are in Libs (Libs.private would need --static)'

install: $(LIBS) $(BINS)
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)/pbdlab
	$(INSTALL) -m 644 $(LIBS) $(DESTDIR)$(LIBDIR)/
	$(INSTALL) -m 755 $(BINS) $(DESTDIR)$(BINDIR)/
	@for h in $(PUBLIC_HEADERS); do \
	  $(INSTALL) -d $(DESTDIR)$(INCLUDEDIR)/pbdlab/$$(dirname $$h) && \
	  sed -E 's,^#include "((solver|constraints|experiments|analysis)/),#include "pbdlab/\1,' \
	    $$h > $(DESTDIR)$(INCLUDEDIR)/pbdlab/$$h && chmod 644 $(DESTDIR)$(INCLUDEDIR)/pbdlab/$$h || exit 1; \
	done
	@echo "installed $(words $(PUBLIC_HEADERS)) headers under $(DESTDIR)$(INCLUDEDIR)/pbdlab"
	@{ $(call pc_head,pbdlab,Position Based Dynamics (PBD$(comma) XPBD$(comma) VBD$(comma) PD) physics: constraints$(comma) solvers$(comma) analysis); \
	  echo 'Libs: -L$${libdir} -lpbd $(strip $(OMP) $(PHYS_LIBS))'; \
	} > $(DESTDIR)$(LIBDIR)/pkgconfig/pbdlab.pc
	@{ $(call pc_head,pbdlab-harness,the pbdlab harness: meshes$(comma) scenes$(comma) options$(comma) HDF5 logging$(comma) experiment drivers); \
	  echo 'Requires: pbdlab'; \
	  echo 'Libs: -L$${libdir} -lpbdlab-harness $(strip $(HDF5_LIBS))'; \
	} > $(DESTDIR)$(LIBDIR)/pkgconfig/pbdlab-harness.pc
	@echo "installed $(DESTDIR)$(LIBDIR)/pkgconfig/pbdlab.pc, pbdlab-harness.pc"

uninstall:
	rm -f $(addprefix $(DESTDIR)$(LIBDIR)/,$(notdir $(LIBS)) pkgconfig/pbdlab.pc pkgconfig/pbdlab-harness.pc) \
	  $(addprefix $(DESTDIR)$(BINDIR)/,$(notdir $(BINS)))
	rm -rf $(DESTDIR)$(INCLUDEDIR)/pbdlab

# Install into build/test-install/prefix and build tests/install/example.c against the
# physics alone and a harness program against both, with pkg-config only
# (tests/install/check.sh).
test-install: $(LIBS) $(BINS)
	sh tests/install/check.sh "$(MAKE)" $(BUILD)

clean:
	rm -rf build

# constraints/README.md "Adding a constraint" followed to the letter in a temporary copy of the
# tree: a throw-away type must build, be listed by pbd-gradcheck PASS, and FAIL with a wrong
# gradient (scripts/test-new-constraint.sh).
.PHONY: test-new-constraint
test-new-constraint: $(BUILD)/pbd-gradcheck
	sh scripts/test-new-constraint.sh $(BUILD)

# solver/README.md "The method table" followed with a throw-away method (one file, one row),
# stepped on the chain to its closed form (scripts/test-new-method.sh).
.PHONY: test-new-method
test-new-method: $(BUILD)/pbd-run
	sh scripts/test-new-method.sh $(BUILD)

# "Solvers refuse up front or converge": --method=newton and --reference=newton on
# every scene x material x E = 1e3..1e11 Pa, 2 steps each (scripts/newton-sweep.sh; ~1 min).
.PHONY: newton-sweep
newton-sweep: $(BUILD)/pbd-run
	sh scripts/newton-sweep.sh $(BUILD) 2

# Every relative Markdown link and every `FILE.md "Section"` citation (DESIGN.md's included)
# resolves (scripts/check-doc-links.sh); no issue number outside tests/ and no comment citing
# a repository path that does not exist (scripts/check-comments.sh); no #include circle in
# solver/. Perl and git only, no build needed; CI's first step.
.PHONY: check-doc-links
check-doc-links:
	@sh scripts/check-doc-links.sh
	@sh scripts/check-comments.sh
	@sh scripts/check-includes.sh
