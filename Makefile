# kernel_delay: is the process slow, or is the kernel starving it?
#
#   make            build ./kernel_delay
#   make check      install what is missing, prepare the host, build, and
#                   run every test (unit tests, then end-to-end as root)
#   make unit       only the unit tests (tests/unit/run) and the man
#                   page's (tests/test-man.sh); no root needed
#   make check-kernels  the same tests that matter per kernel, in guests
#                   booted on Debian 12's kernels under qemu (CI runs both)
#   make check-kernels-arm64  the same on Debian 12's arm64 kernels, with
#                   an arm64 user space (not in CI: run before a release)
#   make demo       install, build, and run the tool on a demo workload
#   make install    install the binary and the man page (PREFIX, DESTDIR)
#   make deb, make srpm, make check-package, make install-compat
#                   packages, and the drop-in kernel_delay.py for
#                   Open vSwitch's usdt-scripts (tools/package.mk)
#   make base-image, make image, make check-image
#                   the container image and its test (tools/image.mk;
#                   podman, not part of make check)

VERSION = 0.1.0

CC ?= cc
PKG_CONFIG ?= pkg-config
PREFIX ?= /usr/local
DESTDIR ?=
SBINDIR = $(PREFIX)/sbin
MANDIR = $(PREFIX)/share/man/man8
COMPLETIONDIR = $(PREFIX)/share/bash-completion/completions

PKGS = libbcc libbpf libelf libdw
OPTFLAGS ?= -O2 -g
WARNFLAGS = -Wall -Wextra -Werror
CFLAGS_ALL = -std=gnu11 -D_GNU_SOURCE $(OPTFLAGS) $(WARNFLAGS) -DKD_VERSION='"$(VERSION)"' \
	-Isrc -Ibpf_templates -Ibuild $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null) \
	$(CFLAGS)
LDLIBS_ALL = $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null || \
	echo -lbcc -lbpf -lelf -ldw) -lm $(LDLIBS)

# Modules that never touch the kernel: unit-tested directly.
CORE_SRCS = src/util.c src/options.c src/template.c src/syscalls.c \
	src/sample.c src/report.c src/target.c src/trigger.c src/json.c \
	src/render_text.c src/render_json.c src/output.c src/gap.c \
	src/hist.c src/summary.c src/losses.c src/hints.c src/folded.c \
	src/cfi.c src/uwtable.c src/status.c src/names.c src/render_text_gap.c \
	src/parse.c src/usage.c src/metrics.c src/http.c src/exporter.c
# Modules that talk to libbcc, libbpf and the kernel.
KERNEL_SRCS = src/layout.c src/bcc_shim.c src/program.c src/maps.c \
	src/capture.c src/capture_unwind.c src/stackmaps.c src/source.c \
	src/host.c src/hook.c src/events.c src/symbols.c src/snapshot.c \
	src/waiter.c src/sampler.c src/stacks.c src/unwind.c src/attach.c
# The evidence of long poll intervals (--trace-dir, --on-long-poll).
CORE_SRCS += src/trace.c src/tracedir.c src/action.c
KERNEL_SRCS += src/capture_trace.c src/evidence.c
CORE_OBJS = $(CORE_SRCS:src/%.c=build/%.o)
KERNEL_OBJS = $(KERNEL_SRCS:src/%.c=build/%.o) build/template_data.o

# Unit tests (tests/unit/): tests/unit/test_MODULE.c tests src/MODULE.c.
# Those of the modules of CORE_SRCS link only CORE_OBJS, never libbcc or
# libbpf (tests/unit/core_units); those of KERNEL_SRCS also link
# KERNEL_OBJS (tests/unit/kernel_units).  Neither needs root;
# tests/unit/run runs both ("make unit").  A test file named after no
# module of either list is an error (unit-strays), not a test left out.
UNIT_SRCS = $(wildcard tests/unit/test_*.c)
UNIT_CORE_SRCS = $(filter $(CORE_SRCS:src/%=tests/unit/test_%),$(UNIT_SRCS))
UNIT_KERNEL_SRCS = \
	$(filter $(KERNEL_SRCS:src/%=tests/unit/test_%),$(UNIT_SRCS))
UNIT_STRAYS = \
	$(filter-out $(UNIT_CORE_SRCS) $(UNIT_KERNEL_SRCS),$(UNIT_SRCS))
UNIT_CORE_OBJS = $(UNIT_CORE_SRCS:tests/unit/%.c=build/unit/%.o) \
	build/unit/main.o build/unit/cfi_fixture.o
UNIT_KERNEL_OBJS = $(UNIT_KERNEL_SRCS:tests/unit/%.c=build/unit/%.o) \
	build/unit/main.o
UNIT_CORE = tests/unit/core_units
UNIT_KERNEL = tests/unit/kernel_units
UNIT_TESTS = $(UNIT_CORE) $(UNIT_KERNEL)
# What the kernel-free programs link: no libbcc, no libbpf.
LDLIBS_CORE = -ldw -lelf -lm $(LDLIBS)
KERNEL_TESTS = tests/test_kernel

# Every object depends on the headers it includes, as the compiler lists
# them (-MMD -MP) in build/*.d.
DEPFLAGS = -MMD -MP

.PHONY: all check check-kernels check-kernels-arm64 unit unit-strays e2e demo install uninstall \
	clean deps prepare-host workload bench fuzz

all: kernel_delay

build:
	mkdir -p build

build/syscall_table.h: tools/gen-syscall-table.sh | build
	tools/gen-syscall-table.sh "$(CC)" > $@.tmp && mv $@.tmp $@

build/syscalls.o: build/syscall_table.h

# An object without its .d file (built before -MMD, or by hand) is built
# again: the .d file's empty rule makes it count as new.
build/%.o: src/%.c build/%.d | build
	$(CC) $(CFLAGS_ALL) $(DEPFLAGS) -c $< -o $@


build/template_data.o: src/template_data.S bpf_templates/kernel_delay.bpf.c \
		bpf_templates/kd_abi.h | build
	$(CC) -c $< -o $@

kernel_delay: build/main.o $(CORE_OBJS) $(KERNEL_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS_ALL)

# Tests.
build/unit:
	mkdir -p $@

# KD_SRCDIR: where the unit tests find the files they check against the
# code (the man page, the bash completion, the fuzz dictionary).
UNIT_CFLAGS = -Itests -DKD_SRCDIR='"$(CURDIR)"'

build/unit/%.o: tests/unit/%.c build/unit/%.d | build/unit
	$(CC) $(CFLAGS_ALL) $(UNIT_CFLAGS) $(DEPFLAGS) -c $< -o $@

# Functions whose frames only .debug_frame describes (tests/unit/test_cfi.c).
build/unit/cfi_fixture.o: tests/unit/cfi_fixture.c tests/unit/cfi_fixture.h \
		| build/unit
	$(CC) $(CFLAGS_ALL) -g -fno-asynchronous-unwind-tables \
		-fno-unwind-tables -c $< -o $@

# The .d files, named so that make does not take them for intermediate
# files: a missing one then rebuilds its object.
DEP_FILES = $(patsubst %.o,%.d,build/main.o $(CORE_OBJS) \
	$(filter-out build/template_data.o,$(KERNEL_OBJS)) \
	$(UNIT_CORE_OBJS) $(UNIT_KERNEL_OBJS))
$(DEP_FILES):

unit-strays:
	@if [ -n "$(UNIT_STRAYS)" ]; then \
		echo "$(UNIT_STRAYS): no module of CORE_SRCS or KERNEL_SRCS" \
			"has this name (tests/unit/test_MODULE.c)" >&2; \
		exit 1; \
	fi

$(UNIT_CORE): $(UNIT_CORE_OBJS) $(CORE_OBJS) | unit-strays
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS_CORE)

$(UNIT_KERNEL): $(UNIT_KERNEL_OBJS) $(CORE_OBJS) $(KERNEL_OBJS) | unit-strays
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS_ALL)

# The template through the kernel: compiled, verified and run (as root).
$(KERNEL_TESTS): tests/test_kernel.c tests/check.h $(CORE_OBJS) \
		$(KERNEL_OBJS)
	$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ $(filter-out %.h,$^) $(LDLIBS_ALL)

tests/workload: tests/workload.c
	$(CC) -O2 -g $(WARNFLAGS) -fno-omit-frame-pointer -pthread -o $@ $<

# The same without frame pointers, as packages are built: only the call
# frame information finds its callers (e2e scenarios unwind_*).
tests/workload-nofp: tests/workload.c
	$(CC) -O2 -g $(WARNFLAGS) -fomit-frame-pointer -pthread -o $@ $<

# The library it loads later (its "dlspin" job), likewise.
tests/libkdunwind.so: tests/libkdunwind.c
	$(CC) -O2 -g $(WARNFLAGS) -fomit-frame-pointer -shared -fPIC -o $@ $<

tests/cycler: tests/cycler.c
	$(CC) -O2 -g $(WARNFLAGS) -pthread -o $@ $<

# Injects an error in the middle of a run (e2e scenario json_error).
tests/inject_eio.so: tests/inject_eio.c
	$(CC) -O2 -g $(WARNFLAGS) -shared -fPIC -o $@ $< -ldl

# Hostile clients of the --metrics endpoint (e2e scenario metrics_hostile).
tests/hostile_client: tests/hostile_client.c
	$(CC) -O2 -g $(WARNFLAGS) -pthread -o $@ $<

# What the end-to-end tests run.
WORKLOADS = tests/workload tests/workload-nofp tests/libkdunwind.so \
	tests/cycler tests/inject_eio.so tests/hostile_client

workload: $(WORKLOADS)

deps:
	tools/install-deps.sh build test

prepare-host:
	tools/prepare-host.sh

unit: $(UNIT_TESTS)
	tests/unit/run
	tests/test-man.sh
	tests/test-bench-analyze.sh

e2e: kernel_delay $(WORKLOADS)
	tests/e2e.sh ./kernel_delay

# The README's test command: everything, from a fresh Debian 12 machine.
check:
	tools/install-deps.sh build test
	tools/prepare-host.sh
	$(MAKE) all $(UNIT_TESTS) $(KERNEL_TESTS) $(WORKLOADS) fuzz-build
	tools/run-tests.sh

# The kernel lane: the tests that matter per kernel, in guests booted on
# Debian 12's own kernels under qemu (tests/kernels/README.md).
check-kernels:
	tools/install-deps.sh build test lane
	tools/prepare-host.sh
	$(MAKE) all $(KERNEL_TESTS) $(WORKLOADS)
	tests/kernels/check

# The arm64 lane: Debian 12's arm64 kernels under qemu-system-aarch64, with
# an arm64 Debian user space that holds the tree built for arm64
# (tests/kernels/arm64-root).  About 40 minutes a kernel, both at once: not
# in CI.
check-kernels-arm64:
	tools/install-deps.sh build test lane-arm64
	tests/kernels/arm64-root
	tests/kernels/check arm64-6.1 arm64-6.12

# Only what the demo needs: no test-only package (clang, Open vSwitch).
demo:
	tools/install-deps.sh demo
	tools/prepare-host.sh
	$(MAKE) all tests/workload
	tools/demo.sh

# Benchmarks (bench/bench.mk: "make bench") and fuzzing and sanitizers
# (tests/fuzz/fuzz.mk: "make fuzz", "make check SANITIZE=1") live in their
# own fragments.
-include bench/bench.mk
-include tests/fuzz/fuzz.mk
include tools/package.mk
include tools/image.mk

install: kernel_delay
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(MANDIR) \
		$(DESTDIR)$(COMPLETIONDIR)
	install -m 0755 kernel_delay $(DESTDIR)$(SBINDIR)/kernel_delay
	install -m 0644 man/kernel_delay.8 $(DESTDIR)$(MANDIR)/kernel_delay.8
	install -m 0644 completion/kernel_delay \
		$(DESTDIR)$(COMPLETIONDIR)/kernel_delay

uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/kernel_delay \
		$(DESTDIR)$(MANDIR)/kernel_delay.8 \
		$(DESTDIR)$(COMPLETIONDIR)/kernel_delay

clean:
	rm -rf build kernel_delay $(UNIT_TESTS) $(KERNEL_TESTS) $(WORKLOADS)

-include $(wildcard build/*.d build/unit/*.d)
