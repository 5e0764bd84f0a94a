# Sanitizer builds, valgrind and libFuzzer targets for kernel_delay.
# Included at the end of the top Makefile, so every variable it defines
# (CFLAGS_ALL, LDLIBS_ALL, CORE_OBJS, KERNEL_OBJS, ...) is known here.
#
#   make check SANITIZE=1  the whole suite (unit, e2e, fuzz smoke) with the
#                          tool and the unit tests built with ASan + UBSan
#   make san               just build build/san/kernel_delay and
#                          build/san/unit/{core,kernel}_units
#   make valgrind          the unit tests under valgrind (memcheck); fails
#                          on any error and on definite or indirect leaks
#   make fuzz              build the libFuzzer targets and run each for
#                          FUZZ_SECONDS (default 60)
#   make fuzz-smoke        the same, 10 s each (what "make check" runs)
#   make fuzz-build        only build them (build/fuzz/fuzz_*)
#   make fuzz-repro        replay tests/fuzz/crashes/* against their targets
#   make fuzz-coverage     line/branch coverage of src/ by the scratch
#                          corpora (after a "make fuzz")
#
# Sanitized and plain objects never mix: the sanitized objects and
# binaries live in build/san/ (the plain ones in build/ and ./), the
# fuzzers and their scratch corpora in build/fuzz/.  SANITIZE=1 adds the
# sanitized binaries to "all" and exports KD_BIN and KD_UNIT_TESTS, which
# tools/run-tests.sh and tests/unit/run run instead of ./kernel_delay and
# tests/unit/{core,kernel}_units; it never changes CFLAGS_ALL, so those are
# still plain, and a later plain "make" finds nothing sanitized to reuse.
# "make clean" removes build/, so all of this too.

FUZZ_DIR = tests/fuzz
SAN_DIR = build/san
FUZZ_BUILD = build/fuzz

# --- Sanitizers (gcc, the project's compiler) -----------------------------

SANFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all
# CFLAGS_ALL's -O2 stays: the sanitizers work at any level, and -O2 keeps
# the same -Werror warnings as the plain build.
SAN_CFLAGS = $(CFLAGS_ALL) $(SANFLAGS)
SAN_CORE_OBJS = $(CORE_OBJS:build/%=$(SAN_DIR)/%)
SAN_KERNEL_OBJS = $(KERNEL_OBJS:build/%=$(SAN_DIR)/%)
SAN_BIN = $(SAN_DIR)/kernel_delay
SAN_UNIT_CORE = $(SAN_DIR)/unit/core_units
SAN_UNIT_KERNEL = $(SAN_DIR)/unit/kernel_units
SAN_UNIT_TESTS = $(SAN_UNIT_CORE) $(SAN_UNIT_KERNEL)

# Run-time options of the sanitized binaries (exported below, so they also
# reach e2e.sh's runs of the tool and the fuzz smoke runs).
#
# Leaks: LeakSanitizer stays on, for our code and for what we own through
# libbcc (a module not destroyed, a USDT context not closed).  libbcc embeds
# LLVM and clang, whose process-long state could have been reported at
# exit; measured with libbcc 0.26.0 over the whole suite, it is not (it all
# stays reachable), so tests/fuzz/lsan.supp has no active entry, and says
# how to add one that names a libbcc/LLVM frame rather than the whole
# library, which would also hide our own leaks.  print_suppressions=0
# keeps the summary of matched suppressions off the stderr e2e.sh checks.
# detect_stack_use_after_return and check_initialization_order are off by
# default in ASan; strict_string_checks makes the string interceptors
# check whole strings.
SAN_ASAN = detect_leaks=1 halt_on_error=1 detect_stack_use_after_return=1 \
	check_initialization_order=1 strict_string_checks=1
SAN_LSAN = suppressions=$(CURDIR)/$(FUZZ_DIR)/lsan.supp print_suppressions=0
SAN_UBSAN = print_stacktrace=1 halt_on_error=1
san_empty :=
san_colons = $(subst $(san_empty) $(san_empty),:,$(strip $(1)))
SAN_ASAN_OPTIONS = $(call san_colons,$(SAN_ASAN))
SAN_LSAN_OPTIONS = $(call san_colons,$(SAN_LSAN))
SAN_UBSAN_OPTIONS = $(call san_colons,$(SAN_UBSAN))

.PHONY: san valgrind fuzz fuzz-smoke fuzz-build fuzz-repro fuzz-coverage

$(SAN_DIR) $(SAN_DIR)/unit:
	mkdir -p $@

$(SAN_DIR)/%.o: src/%.c | $(SAN_DIR)
	$(CC) $(SAN_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(SAN_DIR)/unit/%.o: tests/unit/%.c | $(SAN_DIR)/unit
	$(CC) $(SAN_CFLAGS) $(UNIT_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(SAN_DIR)/syscalls.o: build/syscall_table.h

$(SAN_DIR)/template_data.o: src/template_data.S \
		bpf_templates/kernel_delay.bpf.c bpf_templates/kd_abi.h \
		| $(SAN_DIR)
	$(CC) -c $< -o $@

$(SAN_BIN): $(SAN_DIR)/main.o $(SAN_CORE_OBJS) $(SAN_KERNEL_OBJS)
	$(CC) $(SANFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS_ALL)

# The same split as the plain unit tests (Makefile): no libbcc or libbpf
# in core_units.
$(SAN_UNIT_CORE): $(UNIT_CORE_OBJS:build/%=$(SAN_DIR)/%) $(SAN_CORE_OBJS) \
		| unit-strays
	$(CC) $(SANFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS_CORE)

$(SAN_UNIT_KERNEL): $(UNIT_KERNEL_OBJS:build/%=$(SAN_DIR)/%) \
		$(SAN_CORE_OBJS) $(SAN_KERNEL_OBJS) | unit-strays
	$(CC) $(SANFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS_ALL)

-include $(wildcard $(SAN_DIR)/*.d $(SAN_DIR)/unit/*.d)

san: $(SAN_BIN) $(SAN_UNIT_TESTS)

ifeq ($(SANITIZE),1)
# "make check" runs "$(MAKE) all $(UNIT_TESTS) tests/workload", then
# tools/run-tests.sh: build the sanitized binaries too, and have the suite
# run them, with the options above, wherever it runs them (e2e.sh starts
# KD_BIN as root and as a plain user, all with this environment;
# tests/unit/run runs the programs KD_UNIT_TESTS lists).
all: $(SAN_BIN) $(SAN_UNIT_TESTS)
unit: $(SAN_UNIT_TESTS)
export KD_BIN = $(SAN_BIN)
export KD_UNIT_TESTS = $(SAN_UNIT_TESTS)
export ASAN_OPTIONS = $(SAN_ASAN_OPTIONS)
export LSAN_OPTIONS = $(SAN_LSAN_OPTIONS)
export UBSAN_OPTIONS = $(SAN_UBSAN_OPTIONS)
# For the checks of e2e.sh that measure the process rather than its output
# (RSS growth over a long run: ASan's quarantine keeps up to 256 MB of
# freed blocks, so RSS drifts by megabytes where the plain tool's is flat).
export KD_SANITIZED = 1
endif

# --- Valgrind ---------------------------------------------------------------

# The plain unit tests, each program in turn (valgrind cannot run ASan
# binaries).  Leaks count when definite or indirect; "possibly lost" and
# "still reachable" blocks are LLVM's and libbcc's static state (libbcc is
# linked into kernel_units, its static constructors run), never counted.
# --track-origins makes any report say where an uninitialised value came
# from.
VALGRIND = valgrind
VALGRIND_FLAGS = --leak-check=full --errors-for-leak-kinds=definite,indirect \
	--error-exitcode=1 --track-origins=yes --num-callers=30 \
	--suppressions=$(FUZZ_DIR)/valgrind.supp

valgrind: $(UNIT_TESTS)
	set -e; for t in $(UNIT_TESTS); do \
		$(VALGRIND) $(VALGRIND_FLAGS) $$t; \
	done

# --- libFuzzer --------------------------------------------------------------

# clang 14 on Debian 12 (packages clang and libclang-rt-14-dev).  The
# targets link only the pure modules: no libbcc, no kernel.
FUZZ_CC = clang
FUZZ_SANFLAGS = -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS = -std=gnu11 -D_GNU_SOURCE -g -O1 -Wall -Wextra -Werror \
	-DKD_VERSION='"$(VERSION)"' -Isrc -Ibpf_templates $(FUZZ_SANFLAGS)
FUZZ_TARGETS = trigger options template
FUZZ_BINS = $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)
FUZZ_SECONDS ?= 60

FUZZ_SRCS_trigger = src/trigger.c src/util.c
FUZZ_SRCS_options = src/options.c src/parse.c src/usage.c src/http.c \
	src/util.c
FUZZ_SRCS_template = src/template.c src/util.c

$(FUZZ_BUILD):
	mkdir -p $@

# Coverage builds of the same targets (no sanitizers), for
# "make fuzz-coverage": line and branch coverage of the pure modules by the
# scratch corpora.
FUZZ_COV_CFLAGS = -std=gnu11 -D_GNU_SOURCE -g -O0 -DKD_VERSION='"$(VERSION)"' \
	-Isrc -Ibpf_templates -fsanitize=fuzzer -fprofile-instr-generate -fcoverage-mapping

# One rule per target (no .SECONDEXPANSION: it would apply to every rule
# of the top Makefile read after this fragment).
define FUZZ_RULE
$(FUZZ_BUILD)/fuzz_$(1): $(FUZZ_DIR)/fuzz_$(1).c $(FUZZ_DIR)/fuzz_common.h \
		$(FUZZ_SRCS_$(1)) $(wildcard src/*.h) | $(FUZZ_BUILD)
	$$(FUZZ_CC) $$(FUZZ_CFLAGS) -o $$@ $$< $(FUZZ_SRCS_$(1)) -lm

$(FUZZ_BUILD)/cov_$(1): $(FUZZ_DIR)/fuzz_$(1).c $(FUZZ_DIR)/fuzz_common.h \
		$(FUZZ_SRCS_$(1)) $(wildcard src/*.h) | $(FUZZ_BUILD)
	$$(FUZZ_CC) $$(FUZZ_COV_CFLAGS) -o $$@ $$< $(FUZZ_SRCS_$(1)) -lm
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call FUZZ_RULE,$(t))))

fuzz-build: $(FUZZ_BINS)

fuzz: fuzz-build
	$(FUZZ_DIR)/run-fuzz.sh $(FUZZ_SECONDS)

fuzz-smoke: fuzz-build
	$(FUZZ_DIR)/run-fuzz.sh 10

fuzz-repro: fuzz-build
	$(FUZZ_DIR)/run-fuzz.sh --repro

fuzz-coverage: $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/cov_%)
	$(FUZZ_DIR)/run-fuzz.sh --coverage
