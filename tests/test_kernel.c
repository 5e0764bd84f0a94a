/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Tests of the eBPF template through the running kernel: every shape of
 * the program that the options can ask for is expanded, compiled by libbcc
 * and loaded by the kernel's verifier, with the struct layout from BTF and
 * from the kernel headers (the fallback of a kernel without BTF).  A path
 * of the template that only some kernels reach (the upcall kretprobe needs
 * kprobes and the openvswitch module, say) is thus compiled and verified on
 * every kernel, this one included.  The upcall function is also run for
 * real, on a uretprobe of a function of this program that returns known
 * values, and its counts are checked.
 *
 * Run as root on a machine where eBPF works, like the end-to-end tests;
 * "tests/test_kernel -k upcall" runs the tests whose names contain
 * "upcall", and $KD_TEST_SHAPES (shape names, separated by commas)
 * limits the shapes compiled. */

#include <bcc/bcc_common.h>
#include <bcc/bcc_syms.h>
#include <bpf/bpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "source.h"
#include "layout.h"
#include "maps.h"
#include "options.h"
#include "program.h"
#include "util.h"

#include "check.h"

/* A shape of the program, as options would ask for it. */
struct shape {
    const char *name;
    bool upcalls;
    bool events;                /* -s */
    unsigned int stack_trace_size;
    bool histogram;
    bool start;                 /* --start-trigger */
    bool stop;                  /* --stop-trigger */
    bool summary;               /* --summary (time accounts) */
    bool long_poll;             /* --long-poll-events */
    unsigned int profile_hz;    /* --profile-hz */
    bool off_cpu;               /* --off-cpu */
    bool frame_pointers;        /* --frame-pointers */
    unsigned int trace_history; /* --trace-dir with --trace-history N,
                                 * or 0 */
};

static const struct shape shapes[] = {
    { "default", true, false, 4096, false, false, false, false, false, 0,
      false, false, 0 },
    { "skip-upcall-stats", false, false, 4096, false, false, false, false,
      false, 0, false, false, 0 },
    { "everything", true, true, 4096, true, true, true, true, false, 0,
      false, false, 0 },
    { "events without stacks", true, true, 0, false, false, false, false,
      false, 0, false, false, 0 },
    { "start trigger only", true, false, 4096, false, true, false, false,
      false, 0, false, false, 0 },
    { "stop trigger only", true, false, 4096, false, false, true, false,
      false, 0, false, false, 0 },
    { "summary", true, false, 4096, false, false, false, true, false, 0,
      false, false, 0 },
    { "long poll events", false, false, 4096, false, false, false, false,
      true, 0, false, false, 0 },
    { "long poll events profiled", false, false, 4096, false, false, false,
      false, true, 99, false, false, 0 },
    { "long poll events off cpu", false, false, 4096, false, false, false,
      false, true, 99, true, false, 0 },
    { "sample profiled off cpu", true, true, 4096, false, false, false,
      false, false, 99, true, false, 0 },
    { "frame pointers", true, true, 4096, false, false, false, false, false,
      99, true, true, 0 },
    /* The default ring, and the largest. */
    { "long poll events traced", false, false, 4096, false, false, false,
      false, true, 0, false, false, 256 },
    { "long poll events traced with stacks", false, false, 4096, false,
      false, false, false, true, 99, true, false, 4096 },
};

/* Shapes by name, for the tests that run them. */
#define SHAPE_DEFAULT   (&shapes[0])
#define SHAPE_ALL       (&shapes[2])
#define SHAPE_LONG_POLL (&shapes[7])

/* The program type each function of the template is loaded as; the
 * trigger probes are also loaded as tracepoint programs below. */
static int
func_type(const char *name)
{
    if (!strncmp(name, KD_RAW_TP_PREFIX, strlen(KD_RAW_TP_PREFIX))) {
        return BPF_PROG_TYPE_RAW_TRACEPOINT;
    }
    if (!strcmp(name, "kd_profile") || !strcmp(name, "kd_uw_profile")) {
        return BPF_PROG_TYPE_PERF_EVENT;
    }
    /* The unwinders of raw tracepoint programs, which tail-call them. */
    if (!strncmp(name, "kd_uw_", 6)) {
        return BPF_PROG_TYPE_RAW_TRACEPOINT;
    }
    return BPF_PROG_TYPE_KPROBE;
}

/* kd_source_build() for 'o', with upcall statistics if the options
 * want them and 'upcalls' (the kernel can trace them). */
static int
capture_source(const struct kd_options *o, unsigned int tgid,
               const struct kd_layout *l, const char *prefix, bool upcalls,
               char **text, char **error)
{
    /* Unwind tables of a few rows: the program's shape is the same. */
    static const struct kd_source_unwind unwind = { 64, 64, 1 };
    struct kd_needs needs = kd_options_needs(o);

    needs.upcalls = needs.upcalls && upcalls;
    /* As the capture: no unwinding without BTF. */
    needs.unwind = needs.unwind && l->from_btf;
    return kd_source_build(o, &needs, tgid, l, needs.unwind ? &unwind : NULL,
                           prefix, text, error);
}

/* Expands the template for 'shape', compiles it into 'prog' and loads
 * every function.  Returns true if all of that worked. */
static bool
build_shape(const struct shape *shape, bool headers, struct kd_program *prog)
{
    struct kd_options o = kd_options_defaults;
    struct kd_layout layout;
    char *error = NULL, *text = NULL;
    size_t n;

    o.syscall_events = shape->events;
    o.stack_trace_size = shape->stack_trace_size;
    o.histogram = shape->histogram;
    o.start_trigger = shape->start ? "k:do_nanosleep" : NULL;
    o.stop_trigger = shape->stop ? "kr:do_nanosleep" : NULL;
    o.summary = shape->summary;
    o.long_poll = shape->long_poll;
    o.profile_hz = shape->profile_hz;
    o.off_cpu = shape->off_cpu;
    o.frame_pointers = shape->frame_pointers;
    o.trace_dir = shape->trace_history ? "/nonexistent" : NULL;
    o.trace_history = shape->trace_history ? shape->trace_history
                                           : o.trace_history;

    *prog = (struct kd_program) KD_PROGRAM_INITIALIZER;
    if (!CHECK_INT(kd_layout_init(&layout, headers, &error), 0)
        || !CHECK_INT(capture_source(&o, getpid(), &layout, NULL,
                                        shape->upcalls, &text, &error), 0)) {
        printf("  shape '%s': %s\n", shape->name, error ? error : "?");
        free(error);
        return false;
    }
    if (!CHECK_INT(kd_program_compile(prog, text, 0, &error), 0)) {
        printf("  shape '%s' (%s) does not compile: %s\n", shape->name,
               headers ? "headers" : "BTF", error);
        free(error);
        free(text);
        return false;
    }
    free(text);

    n = bpf_num_functions(prog->module);
    for (size_t i = 0; i < n; i++) {
        const char *func = bpf_function_name(prog->module, i);
        int fd;

        if (!CHECK_INT(kd_program_load(prog, func, func_type(func), 0, &fd,
                                       &error), 0)) {
            printf("  shape '%s' (%s): %s\n", shape->name,
                   headers ? "headers" : "BTF", error);
            free(error);
            return false;
        }
        if (strstr(func, "_trigger_probe")
            && !CHECK_INT(kd_program_load(prog, func,
                                          BPF_PROG_TYPE_TRACEPOINT, 0, &fd,
                                          &error), 0)) {
            printf("  shape '%s': %s as a tracepoint program: %s\n",
                   shape->name, func, error);
            free(error);
            return false;
        }
    }

    /* The functions the shape asks for are there. */
    CHECK(!!bpf_function_start(prog->module, "kd_upcall_return")
          == shape->upcalls);
    CHECK(!!bpf_function_start(prog->module, "kd_start_trigger_probe")
          == shape->start);
    CHECK(!!bpf_function_start(prog->module, "kd_stop_trigger_probe")
          == shape->stop);
    CHECK(!!bpf_function_start(prog->module, "kd_profile")
          == (shape->profile_hz > 0));
    /* With BTF, stacks unwound from the CFI, unless --frame-pointers. */
    CHECK(!!bpf_function_start(prog->module, "kd_uw_profile")
          == (shape->profile_hz > 0 && !shape->frame_pointers && !headers));
    CHECK(!!bpf_function_start(prog->module, "kd_uw_raw")
          == ((shape->off_cpu || (shape->events && shape->stack_trace_size))
              && !shape->frame_pointers && !headers));
    CHECK(bpf_function_start(prog->module, "raw_tracepoint__sys_exit"));
    return true;
}

/* Whether the shape named 'name' is one that $KD_TEST_SHAPES asks for: a
 * list of shape names separated by commas, or every shape when it is unset
 * or empty.  Under emulation, where a compile takes 15 s, the kernel lane
 * asks only for those that its end-to-end runs do not compile
 * (tests/kernels/guest-tests.sh). */
static bool
shape_wanted(const char *name)
{
    const char *list = getenv("KD_TEST_SHAPES");
    size_t len = strlen(name);

    if (!list || !*list) {
        return true;
    }
    for (const char *p = list; p; p = strchr(p, ',')) {
        p += *p == ',';
        if (!strncmp(p, name, len) && (p[len] == ',' || !p[len])) {
            return true;
        }
    }
    return false;
}

static void
test_shapes(bool headers)
{
    for (size_t i = 0; i < KD_ARRAY_SIZE(shapes); i++) {
        struct kd_program prog;

        if (!shape_wanted(shapes[i].name)) {
            continue;
        }
        /* The headers take a second a compile: the shapes that differ
         * most are enough there. */
        if (headers && &shapes[i] != SHAPE_DEFAULT && &shapes[i] != SHAPE_ALL
            && &shapes[i] != SHAPE_LONG_POLL) {
            continue;
        }
        build_shape(&shapes[i], headers, &prog);
        kd_program_close(&prog);
    }
}

static void
test_template_shapes_btf(void)
{
    test_shapes(false);
}

static void
test_template_shapes_headers(void)
{
    test_shapes(true);
}

/* The function that the upcall kretprobe is attached to here, in place of
 * ovs_dp_upcall(): it returns an int, as that function does. */
int __attribute__((noinline)) kd_test_upcall(int ret);

int __attribute__((noinline))
kd_test_upcall(int ret)
{
    __asm__ volatile("" : : "r"(ret) : "memory");
    return ret;
}

/* Attaches function 'func' of 'prog' to a u(ret)probe on function 'sym'
 * of this program.  Returns true on success. */
static bool
attach_here(struct kd_program *prog, const char *func, bool retprobe,
            const char *sym)
{
    struct bcc_symbol bsym;
    char exe[4096];
    char *error = NULL;
    ssize_t len;
    bool ok;

    len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (!CHECK(len > 0)) {
        return false;
    }
    exe[len] = '\0';
    if (!CHECK_INT(bcc_resolve_symname(exe, sym, 0, 0, NULL, &bsym), 0)) {
        return false;
    }
    ok = CHECK_INT(kd_program_attach_uprobe(prog, func, retprobe, exe,
                                            bsym.offset, getpid(), 0,
                                            &error), 0);
    if (!ok) {
        printf("  %s\n", error);
        free(error);
    }
    free((void *) bsym.module);
    return ok;
}

/* Sums the per-CPU counts of key 'key' of upcall_count. */
static uint64_t
upcall_count(int fd, uint64_t key)
{
    int n_cpus = kd_possible_cpus();
    uint64_t *values = kd_xcalloc(n_cpus, sizeof *values);
    uint64_t sum = 0;

    if (!bpf_map_lookup_elem(fd, &key, values)) {
        for (int i = 0; i < n_cpus; i++) {
            sum += values[i];
        }
    }
    free(values);
    return sum;
}

static size_t
upcall_keys(int fd)
{
    uint64_t key, next;
    size_t n = 0;

    for (int err = bpf_map_get_next_key(fd, NULL, &next); !err;
         err = bpf_map_get_next_key(fd, &key, &next)) {
        key = next;
        n++;
    }
    return n;
}

/* The upcall kretprobe's function, on a uretprobe of kd_test_upcall():
 * successes count under key 0, failures under their errno, nothing while
 * the capture is off. */
static void
test_upcall_return_values(void)
{
    struct kd_program prog;
    int fd;

    if (!build_shape(SHAPE_DEFAULT, false, &prog)
        || !attach_here(&prog, "kd_upcall_return", true, "kd_test_upcall")) {
        goto cleanup;
    }
    fd = kd_program_map_fd(&prog, "upcall_count");
    if (!CHECK(fd >= 0)) {
        goto cleanup;
    }

    /* Off: nothing is counted. */
    kd_test_upcall(0);
    kd_test_upcall(-ENOSPC);
    CHECK_UINT(upcall_keys(fd), 0);

    CHECK_INT(kd_map_set_u64(kd_program_map_fd(&prog, "capture_on"), 0,
                             KD_CAPTURE_ON), 0);
    for (int i = 0; i < 7; i++) {
        kd_test_upcall(0);
    }
    for (int i = 0; i < 3; i++) {
        kd_test_upcall(-ENOSPC);
    }
    for (int i = 0; i < 2; i++) {
        kd_test_upcall(-EAGAIN);
    }
    kd_test_upcall(5);          /* A positive return is a success too. */
    CHECK_UINT(upcall_count(fd, 0), 8);
    CHECK_UINT(upcall_count(fd, ENOSPC), 3);
    CHECK_UINT(upcall_count(fd, EAGAIN), 2);
    CHECK_UINT(upcall_keys(fd), 3);

cleanup:
    kd_program_close(&prog);
}

/* The functions the trigger probes are attached to here. */
void __attribute__((noinline)) kd_test_start(void);
void __attribute__((noinline)) kd_test_stop(void);

void __attribute__((noinline))
kd_test_start(void)
{
    __asm__ volatile("" : : : "memory");
}

void __attribute__((noinline))
kd_test_stop(void)
{
    __asm__ volatile("" : : : "memory");
}

static uint64_t
capture_state(struct kd_program *prog)
{
    uint64_t state = UINT64_MAX;

    kd_map_get_u64(kd_program_map_fd(prog, "capture_on"), 0, &state);
    return state;
}

static uint64_t
triggers_missed(struct kd_program *prog)
{
    uint64_t counters[KD_N_COUNTERS] = { 0 };

    kd_map_percpu_sums(kd_program_map_fd(prog, "counters"), counters,
                       KD_N_COUNTERS, false);
    return counters[KD_COUNTER_TRIGGERS_MISSED];
}

/* The capture's states, driven by the real trigger probes: a start trigger
 * before the first arming starts nothing and is no missed sample; armed,
 * it starts the sample once; while a sample is reported, it is a missed
 * one.  The stop trigger only stops a sample that is on. */
static void
test_trigger_states(void)
{
    struct kd_program prog;
    int fd;

    if (!build_shape(SHAPE_ALL, false, &prog)
        || !attach_here(&prog, "kd_start_trigger_probe", false,
                        "kd_test_start")
        || !attach_here(&prog, "kd_stop_trigger_probe", false,
                        "kd_test_stop")) {
        goto cleanup;
    }
    fd = kd_program_map_fd(&prog, "capture_on");

    /* Unarmed, as loaded: kernel_delay is still attaching. */
    CHECK_UINT(capture_state(&prog), KD_CAPTURE_UNARMED);
    kd_test_stop();
    kd_test_start();
    kd_test_start();
    CHECK_UINT(capture_state(&prog), KD_CAPTURE_UNARMED);
    CHECK_UINT(triggers_missed(&prog), 0);

    /* Armed: the first start trigger starts the sample, the next ones
     * leave it on. */
    CHECK_INT(kd_map_set_u64(fd, 0, KD_CAPTURE_IDLE), 0);
    kd_test_stop();
    CHECK_UINT(capture_state(&prog), KD_CAPTURE_IDLE);
    kd_test_start();
    CHECK_UINT(capture_state(&prog), KD_CAPTURE_ON);
    kd_test_start();
    CHECK_UINT(capture_state(&prog), KD_CAPTURE_ON);
    CHECK_UINT(triggers_missed(&prog), 0);

    /* The stop trigger stops it; starts while it is reported are
     * missed. */
    kd_test_stop();
    CHECK_UINT(capture_state(&prog), KD_CAPTURE_STOPPED);
    kd_test_start();
    kd_test_start();
    CHECK_UINT(capture_state(&prog), KD_CAPTURE_STOPPED);
    CHECK_UINT(triggers_missed(&prog), 2);

cleanup:
    kd_program_close(&prog);
}

static const struct test tests[] = {
    TEST(test_template_shapes_btf),
    TEST(test_template_shapes_headers),
    TEST(test_upcall_return_values),
    TEST(test_trigger_states),
};

int
main(int argc, char *argv[])
{
    if (geteuid()) {
        printf("test_kernel: must run as root (eBPF)\n0 passed, 1 failed\n");
        return 1;
    }
    return check_main(tests, KD_ARRAY_SIZE(tests), argc, argv);
}
