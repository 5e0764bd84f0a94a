/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Unit tests of src/source.c that compile nothing: the eBPF program's
 * source, expanded from the template for each shape the options ask for
 * and each struct layout. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source.h"
#include "layout.h"
#include "options.h"
#include "util.h"
#include "check.h"

/* The first "@NAME@" placeholder in 's', or NULL. */
static const char *
find_placeholder(const char *s)
{
    for (const char *p = strchr(s, '@'); p; p = strchr(p + 1, '@')) {
        size_t n = strspn(p + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");

        if (n && p[n + 1] == '@') {
            return p;
        }
    }
    return NULL;
}

/* kd_source_build() for 'o', with upcall statistics if the options
 * want them and 'upcalls' (the kernel can trace them). */
static int
capture_source(const struct kd_options *o, unsigned int tgid,
               const struct kd_layout *l, const char *prefix, bool upcalls,
               char **text, char **error)
{
    struct kd_needs needs = kd_options_needs(o);

    needs.upcalls = needs.upcalls && upcalls;
    return kd_source_build(o, &needs, tgid, l, NULL, prefix, text, error);
}

static void
test_capture_source_headers(void)
{
    struct kd_layout l;
    char *error, *text = NULL;

    CHECK_INT(kd_layout_init(&l, true, &error), 0);
    CHECK_INT(capture_source(&kd_options_defaults, 1234, &l, NULL, false,
                                &text, &error), 0);
    if (!CHECK(text != NULL)) {
        free(error);
        return;
    }
    CHECK(find_placeholder(text) == NULL);
    CHECK_CONTAINS(text, "\n#include <linux/sched.h>\n"
                   "#include <linux/interrupt.h>\n"
                   "#include <asm/ptrace.h>\n");
    CHECK_CONTAINS(text, "\n#define KD_TGID             1234\n");
    CHECK_CONTAINS(text, "\n#define KD_OFF_TASK_PID     "
                   "offsetof(struct task_struct, pid)\n");
    CHECK_CONTAINS(text, "\n#define KD_OFF_TASK_TGID    "
                   "offsetof(struct task_struct, tgid)\n");
    CHECK_CONTAINS(text, "\n#define KD_OFF_IRQ_NAME     "
                   "offsetof(struct irqaction, name)\n");
    CHECK_CONTAINS(text, "\n#define KD_OFF_TASK_SUM_EXEC "
                   "offsetof(struct task_struct, se.sum_exec_runtime)\n");
    CHECK_CONTAINS(text, "\n#define KD_MAX_THREADS      8192\n");
    CHECK_CONTAINS(text, "\n#define KD_MAX_SYSCALLS     65536\n");
    CHECK_CONTAINS(text, "\n#define KD_MAX_IRQS         16384\n");
#if defined(__x86_64__)
    CHECK_CONTAINS(text, "\n#define KD_SYSCALL_POLL     7\n");
    CHECK_CONTAINS(text, "\n#define KD_OFF_SYSCALL_NR   "
                   "offsetof(struct pt_regs, orig_ax)\n");
    CHECK_CONTAINS(text, "\n#define KD_OFF_REGS_RC      "
                   "offsetof(struct pt_regs, ax)\n");
#endif
    free(text);
}

static void
test_capture_source_btf(void)
{
    struct kd_layout l;
    char *error = NULL, *text = NULL;

    memset(&l, 0, sizeof l);
    l.from_btf = true;
    l.state_field = "__state";
    l.includes = "";
    snprintf(l.task_pid, sizeof l.task_pid, "2456");
    snprintf(l.task_tgid, sizeof l.task_tgid, "2460");
    snprintf(l.task_state, sizeof l.task_state, "24");
    snprintf(l.task_state_size, sizeof l.task_state_size, "4");
    snprintf(l.irqaction_name, sizeof l.irqaction_name, "80");
    snprintf(l.syscall_nr, sizeof l.syscall_nr, "120");
    snprintf(l.syscall_nr_size, sizeof l.syscall_nr_size, "8");
    snprintf(l.regs_rc, sizeof l.regs_rc, "80");
    snprintf(l.task_sum_exec, sizeof l.task_sum_exec, "232");
    snprintf(l.task_pcount, sizeof l.task_pcount, "1008");
    snprintf(l.task_run_delay, sizeof l.task_run_delay, "1016");

    CHECK_INT(capture_source(&kd_options_defaults, 4321, &l, NULL, false,
                                &text, &error), 0);
    CHECK(error == NULL);
    if (!CHECK(text != NULL)) {
        return;
    }
    CHECK(find_placeholder(text) == NULL);
    CHECK_NOT_CONTAINS(text, "#include");
    CHECK_NOT_CONTAINS(text, "linux/sched.h");
    CHECK_NOT_CONTAINS(text, "offsetof(struct task_struct");
    CHECK_CONTAINS(text, "\n#define KD_TGID             4321\n");
    CHECK_CONTAINS(text, "\n#define KD_OFF_TASK_PID     2456\n");
    CHECK_CONTAINS(text, "\n#define KD_OFF_TASK_TGID    2460\n");
    CHECK_CONTAINS(text, "\n#define KD_OFF_TASK_STATE   24\n");
    CHECK_CONTAINS(text, "\n#define KD_SIZE_TASK_STATE  4\n");
    CHECK_CONTAINS(text, "\n#define KD_OFF_IRQ_NAME     80\n");
    CHECK_CONTAINS(text, "\n#define KD_OFF_SYSCALL_NR   120\n");
    CHECK_CONTAINS(text, "\n#define KD_OFF_REGS_RC      80\n");
    CHECK_CONTAINS(text, "\n#define KD_OFF_TASK_SUM_EXEC 232\n");
    CHECK_CONTAINS(text, "\n#define KD_OFF_TASK_PCOUNT  1008\n");
    CHECK_CONTAINS(text, "\n#define KD_OFF_TASK_RUN_DELAY 1016\n");
    CHECK_CONTAINS(text, "\n#define KD_MAX_THREADS      8192\n");
#if defined(__x86_64__)
    CHECK_CONTAINS(text, "\n#define KD_SYSCALL_POLL     7\n");
#endif
    free(text);
}

/* The template itself, expanded with placeholder-looking values, keeps
 * them verbatim: values are not scanned. */
static void
test_capture_source_values_verbatim(void)
{
    struct kd_layout l;
    char *error = NULL, *text = NULL;

    memset(&l, 0, sizeof l);
    l.from_btf = true;
    l.state_field = "state";
    l.includes = "/* @TGID@ */";
    snprintf(l.task_pid, sizeof l.task_pid, "@OFF_TASK_TGID@");
    snprintf(l.task_tgid, sizeof l.task_tgid, "1");
    snprintf(l.task_state, sizeof l.task_state, "2");
    snprintf(l.task_state_size, sizeof l.task_state_size, "8");
    snprintf(l.irqaction_name, sizeof l.irqaction_name, "3");
    snprintf(l.syscall_nr, sizeof l.syscall_nr, "4");
    snprintf(l.syscall_nr_size, sizeof l.syscall_nr_size, "4");
    snprintf(l.regs_rc, sizeof l.regs_rc, "5");
    CHECK_INT(capture_source(&kd_options_defaults, 1, &l, NULL, false,
                                &text, &error), 0);
    CHECK_CONTAINS(text, "\n/* @TGID@ */\n");
    CHECK_CONTAINS(text, "\n#define KD_OFF_TASK_PID     @OFF_TASK_TGID@\n");
    CHECK_CONTAINS(text, "\n#define KD_SIZE_SYSCALL_NR  4\n");
    free(text);
}

static void
test_capture_source_triggers(void)
{
    struct kd_options o = kd_options_defaults;
    struct kd_layout l;
    char *error, *text = NULL;

    CHECK_INT(kd_layout_init(&l, true, &error), 0);

    /* Time mode: no ring buffer, no trigger function. */
    CHECK_INT(capture_source(&o, 1, &l, NULL, false, &text, &error), 0);
    CHECK_CONTAINS(text, "\n#define KD_WITH_EVENTS          0\n");
    CHECK_CONTAINS(text, "\n#define KD_BUFFER_PAGES     1024\n");
    CHECK_CONTAINS(text, "\n#define KD_WITH_START_TRIGGER   0\n");
    CHECK_CONTAINS(text, "\n#define KD_WITH_STOP_TRIGGER    0\n");
    /* What each switch and value shapes. */
    CHECK_CONTAINS(text, "\n#if KD_WITH_EVENTS\n"
                   "BPF_RINGBUF_OUTPUT(events, KD_BUFFER_PAGES);\n");
    CHECK_CONTAINS(text, "\n#if KD_WITH_START_TRIGGER\nint\n"
                   "kd_start_trigger_probe(");
    CHECK_CONTAINS(text, "\n#if KD_WITH_STOP_TRIGGER\nint\n"
                   "kd_stop_trigger_probe(");
    /* One spelling for the switches: no "#if 0" or "#if 1" left. */
    CHECK_NOT_CONTAINS(text, "#if 0\n");
    CHECK_NOT_CONTAINS(text, "#if 1\n");
    free(text);

    /* Both triggers, a prefix, and the page count. */
    o.start_trigger = "up:a";
    o.stop_trigger = "ur:a";
    o.buffer_page_count = 64;
    CHECK_INT(capture_source(&o, 1, &l, "/* prefix */\n", false, &text,
                                &error), 0);
    CHECK(!strncmp(text, "/* prefix */\n", 13));
    CHECK_CONTAINS(text, "\n#define KD_WITH_EVENTS          1\n");
    CHECK_CONTAINS(text, "\n#define KD_BUFFER_PAGES     64\n");
    CHECK_CONTAINS(text, "\n#define KD_WITH_START_TRIGGER   1\n");
    CHECK_CONTAINS(text, "\n#define KD_WITH_STOP_TRIGGER    1\n");
    CHECK(find_placeholder(text) == NULL);
    /* No trigger text reaches the program. */
    CHECK_NOT_CONTAINS(text, "up:a");
    free(text);
}

static void
test_capture_source_events(void)
{
    struct kd_options o = kd_options_defaults;
    struct kd_layout l;
    char *error, *text = NULL;

    CHECK_INT(kd_layout_init(&l, true, &error), 0);
    o.syscall_events = true;
    o.syscall_events_ns = 50000;
    o.skip_syscall_poll_events = true;
    o.stack_trace_size = 128;
    o.max_threads = 100;
    CHECK_INT(capture_source(&o, 1, &l, NULL, true, &text, &error), 0);
    CHECK_CONTAINS(text, "\n#define KD_WITH_EVENTS          1\n");
    CHECK_CONTAINS(text, "\n#define KD_BUFFER_PAGES     1024\n");
    CHECK_CONTAINS(text, "\n#define KD_WITH_SYSCALL_EVENTS  1\n");
    CHECK_CONTAINS(text, "\n#define KD_WITH_STACKS          1\n");
    CHECK_CONTAINS(text, "\n#define KD_STACK_TRACES     128\n");
    CHECK_CONTAINS(text, "\n#define KD_EVENTS_MIN_NS    50000ULL\n");
    CHECK_CONTAINS(text, "\n#define KD_SKIP_POLL_EVENTS 1\n");
    /* What each switch and value shapes. */
    CHECK_CONTAINS(text, "\n#if KD_WITH_SYSCALL_EVENTS\n"
                   "#if KD_WITH_STACKS\n"
                   "BPF_STACK_TRACE(stack_traces, KD_STACK_TRACES);\n");
    CHECK_CONTAINS(text, "u64 min_ns = KD_EVENTS_MIN_NS;");
    CHECK_CONTAINS(text, "(KD_SKIP_POLL_EVENTS && nr == KD_SYSCALL_POLL)");
    CHECK_CONTAINS(text, "\n#if KD_WITH_UPCALL_STATS\n"
                   "BPF_PERCPU_HASH(upcall_count");
    CHECK_CONTAINS(text, "#define KD_MAX_THREADS      100\n");
    CHECK_CONTAINS(text, "#define KD_MAX_SYSCALLS     800\n");
    CHECK_CONTAINS(text, "#define KD_MAX_IRQS         200\n");
    CHECK_CONTAINS(text, "\n#define KD_WITH_UPCALL_STATS    1\n");
    CHECK(find_placeholder(text) == NULL);
    free(text);

    /* Stacks off: no stack map at all. */
    o.stack_trace_size = 0;
    CHECK_INT(capture_source(&o, 1, &l, NULL, false, &text, &error), 0);
    CHECK_CONTAINS(text, "\n#define KD_WITH_SYSCALL_EVENTS  1\n");
    CHECK_CONTAINS(text, "\n#define KD_WITH_STACKS          0\n");
    CHECK_CONTAINS(text, "\n#define KD_STACK_TRACES     0\n");
    CHECK_CONTAINS(text, "\n#define KD_WITH_UPCALL_STATS    0\n");
    free(text);
}

static const struct test tests[] = {
    TEST(test_capture_source_headers),
    TEST(test_capture_source_btf),
    TEST(test_capture_source_values_verbatim),
    TEST(test_capture_source_triggers),
    TEST(test_capture_source_events),
};

CHECK_SUITE(capture, tests)
