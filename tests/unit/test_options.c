/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Unit tests of src/options.c: the command line, parsed as the reference's
 * argparse parses it, with the usage, --help and the errors of
 * src/usage.c.
 *
 * Every expected value is written out here, taken from the reference
 * kernel_delay.py (its argparse setup), never from this program's own
 * output. */

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "parse.h"
#include "usage.h"
#include "util.h"
#include "check.h"

/* The reference's usage, as Python 3.11's argparse formats it for prog
 * "kernel_delay", plus our options. */
#define USAGE                                                           \
    "usage: kernel_delay [-h] [-D [DEBUG]] [-p VSWITCHD_PID] "          \
    "[-s [DURATION_NS]]\n"                                              \
    "                    [--buffer-page-count NUMBER] "                 \
    "[--sample-count RUNS]\n"                                           \
    "                    [--sample-interval SECONDS] "                  \
    "[--sample-time SECONDS]\n"                                         \
    "                    [--skip-syscall-poll-events] "                 \
    "[--skip-upcall-stats]\n"                                           \
    "                    [--stack-trace-size STACK_TRACE_SIZE]\n"       \
    "                    [--start-trigger TRIGGER] "                    \
    "[--stop-trigger TRIGGER]\n"                                        \
    "                    [--trigger-delta [DURATION_NS]] "              \
    "[--max-threads NUMBER]\n"                                          \
    "                    [--thread REGEX] [--tid TID[,TID...]] "        \
    "[--summary]\n"                                                     \
    "                    [--histogram] [--json] [--list-probes]\n"     \
    "                    [--long-poll-events [DURATION_NS]] [--wall-clock] "\
    "[-q]\n"                                                            \
    "                    [--wait-target] [--node-name NAME] "            \
    "[--metrics ADDR:PORT]\n"                                           \
    "                    [--metrics-tasks N] [--profile-hz HZ] "         \
    "[--off-cpu]\n"                                                     \
    "                    [--folded FILE] [--frame-pointers] "            \
    "[--unwind-memory MIB]\n"                                           \
    "                    [--trace-dir DIR] [--trace-history N]\n"       \
    "                    [--trace-max-mib MIB] [--trace-max-files N]\n" \
    "                    [--on-long-poll CMD] "                          \
    "[--on-long-poll-period DURATION]\n"                                \
    "                    [--version]\n"

/* The rest of --help, after the usage: written out in full, as argparse
 * lays these options out (from columns 2 and 24, 78 wide). */
static const char help_rest[] =
    "\n"
    "Reports, per thread of one process (by default the running "
    "ovs-vswitchd),\n"
    "what the kernel did to it over a sample: syscall counts and latencies,\n"
    "poll-to-poll gaps, time on CPU, waiting in the run queue and stopped, "
    "and\n"
    "hard and soft interrupt time.  See kernel_delay(8).\n"
    "\n"
    "Durations (DURATION_NS, SECONDS) take a unit, ns, us, ms or s, right "
    "after\n"
    "the number: 50ms, 1.5s.  A plain number keeps the option's own unit:\n"
    "nanoseconds for DURATION_NS (1e6 is 1 ms), seconds for SECONDS.\n"
    "\n"
    "options:\n"
    "  -h, --help            show this help message and exit\n"
    "  -D [DEBUG], --debug [DEBUG]\n"
    "                        Enable eBPF debugging\n"
    "  -p VSWITCHD_PID, --pid VSWITCHD_PID\n"
    "                        ovs-vswitch's PID\n"
    "  -s [DURATION_NS], --syscall-events [DURATION_NS]\n"
    "                        Record syscall events that take longer than\n"
    "                        DURATION_NS. Omit the duration value to record "
    "all\n"
    "                        syscall events\n"
    "  --buffer-page-count NUMBER\n"
    "                        Number of BPF ring buffer pages, default 1024\n"
    "  --sample-count RUNS   Number of sample runs, default 1\n"
    "  --sample-interval SECONDS\n"
    "                        Delay between sample runs, default 0\n"
    "  --sample-time SECONDS\n"
    "                        Sample time, default 0.5 seconds\n"
    "  --skip-syscall-poll-events\n"
    "                        Skip poll() syscalls with --syscall-events\n"
    "  --skip-upcall-stats   Skip the collection of upcall statistics\n"
    "  --stack-trace-size STACK_TRACE_SIZE\n"
    "                        Number of unique stack traces that can be "
    "recorded,\n"
    "                        default 4096. 0 to disable\n"
    "  --start-trigger TRIGGER\n"
    "                        Start trigger, see documentation for details\n"
    "  --stop-trigger TRIGGER\n"
    "                        Stop trigger, see documentation for details\n"
    "  --trigger-delta [DURATION_NS]\n"
    "                        Only report event when the trigger duration >\n"
    "                        DURATION_NS, default 0 (all events)\n"
    "  --max-threads NUMBER  Size the eBPF maps for NUMBER threads (64 to\n"
    "                        1048576), default 8192; see kernel_delay(8)\n"
    "  --thread REGEX        Report only threads whose name matches REGEX\n"
    "                        (POSIX extended), or that --tid lists\n"
    "  --tid TID[,TID...]    Report only these threads, or those --thread\n"
    "                        matches\n"
    "  --summary             After each sample, one table of where each\n"
    "                        thread's time went, worst run-queue wait first\n"
    "  --histogram           Log2 histograms of syscall latency, run-queue\n"
    "                        wait and time on CPU, per thread\n"
    "  --json                One JSON object per sample (JSON Lines) instead\n"
    "                        of the text report; see kernel_delay(8)\n"
    "  --list-probes         List the target's USDT probes and exit\n"
    "  --long-poll-events [DURATION_NS]\n"
    "                        Stay attached and explain, as it ends, every "
    "gap\n"
    "                        between two poll() calls of a thread longer "
    "than\n"
    "                        DURATION_NS (default 1000000000), and one that "
    "has\n"
    "                        not ended yet as it grows: where the time went "
    "and\n"
    "                        who ran instead; see kernel_delay(8)\n"
    "  --wall-clock          With -s, list the events' ENTRY and EXIT as UTC\n"
    "                        wall-clock times, not CLOCK_MONOTONIC ns\n"
    "  -q, --quiet           No status line on standard error while waiting\n"
    "                        (a terminal's only)\n"
    "  --wait-target         With --long-poll-events: wait for ovs-vswitchd\n"
    "                        when it is not running, and re-attach when it\n"
    "                        restarts, instead of ending the watch\n"
    "  --node-name NAME      Add \"node\":NAME to every JSON record "
    "(default:\n"
    "                        $KD_NODE_NAME when set)\n"
    "  --metrics ADDR:PORT   With --long-poll-events: serve Prometheus "
    "metrics\n"
    "                        of the intervals, their causes and the tool's\n"
    "                        health at http://ADDR:PORT/metrics\n"
    "  --metrics-tasks N     With --metrics: name the N tasks that ran "
    "longest\n"
    "                        instead of the target's threads (0 to 100,\n"
    "                        default 5), the others as \"other\"\n"
    "  --profile-hz HZ       Sample the target's stacks HZ times a second "
    "(0\n"
    "                        to 10000, default 0: off) and show what each "
    "long\n"
    "                        poll interval, or each thread in a sample, ran\n"
    "  --off-cpu             Show where each long poll interval, or each\n"
    "                        thread in a sample, slept, for how long, and "
    "who\n"
    "                        woke it\n"
    "  --folded FILE         With --profile-hz or --off-cpu: append each "
    "long\n"
    "                        interval's stacks to FILE in the folded format "
    "of\n"
    "                        flame graph tools\n"
    "  --frame-pointers      Walk user stacks through frame pointers, as the\n"
    "                        reference does, instead of unwinding them from\n"
    "                        each mapping's call frame information (CFI)\n"
    "  --unwind-memory MIB   The most kernel memory the tables that unwind\n"
    "                        user stacks may take, in MiB (1 to 4096, default\n"
    "                        64)\n"
    "  --trace-dir DIR       Write, for each long poll interval reported, a\n"
    "                        trace that ui.perfetto.dev opens into DIR: the\n"
    "                        thread's states, syscalls, wake-ups and history\n"
    "  --trace-history N     With --trace-dir: keep the last N records of "
    "each\n"
    "                        thread in the kernel (16 to 4096, rounded up to "
    "a\n"
    "                        power of 2), default 256\n"
    "  --trace-max-mib MIB   With --trace-dir: remove the oldest traces to "
    "keep\n"
    "                        them under MIB MiB, default 64\n"
    "  --trace-max-files N   With --trace-dir: remove the oldest traces to "
    "keep\n"
    "                        N at most, default 256\n"
    "  --on-long-poll CMD    Run CMD with /bin/sh -c when an interval is\n"
    "                        reported, its facts in KD_* environment "
    "variables;\n"
    "                        one at a time; see kernel_delay(8)\n"
    "  --on-long-poll-period DURATION\n"
    "                        Start --on-long-poll's CMD at most once per\n"
    "                        DURATION (ns, or with a unit: 30s), default 60s\n"
    "  --version             show the program's version, the libbcc and "
    "libbpf\n"
    "                        it runs with and the kernel features it finds\n"
    "                        (BTF, kprobes, ring buffer, headers), and exit\n";

struct parse_result {
    int status;
    struct kd_options options;
    char *out;
    char *err;
};

/* Runs kd_options_parse() on 'argv' (NULL-terminated) as it is. */
static void
parse_argv(struct parse_result *r, char *argv[])
{
    size_t out_size, err_size;
    FILE *out, *err;
    int argc = 0;

    while (argv[argc]) {
        argc++;
    }
    out = open_memstream(&r->out, &out_size);
    err = open_memstream(&r->err, &err_size);
    if (!out || !err) {
        abort();
    }
    memset(&r->options, 0xa5, sizeof r->options);
    r->status = kd_options_parse(&r->options, argc, argv, out, err);
    fclose(out);
    fclose(err);
}

/* Runs kd_options_parse() on "kernel_delay" followed by the arguments in
 * 'args' (up to a NULL), capturing what it writes. */
static void
parse_va(struct parse_result *r, va_list args)
{
    char *argv[64];
    int argc = 0;
    const char *arg;

    argv[argc++] = "kernel_delay";
    while ((arg = va_arg(args, const char *)) != NULL) {
        if (argc >= (int) KD_ARRAY_SIZE(argv) - 1) {
            abort();
        }
        argv[argc++] = (char *) arg;
    }
    argv[argc] = NULL;
    parse_argv(r, argv);
}

static void
parse_result_destroy(struct parse_result *r)
{
    free(r->out);
    free(r->err);
}

/* Checks that the arguments are accepted, and gives the options. */
static void
parse_ok_at(const char *file, int line, struct kd_options *options, ...)
{
    struct parse_result r;
    va_list args;

    va_start(args, options);
    parse_va(&r, args);
    va_end(args);
    check_int(r.status, -1, "kd_options_parse() status", file, line);
    check_str(r.out, "", "output", file, line);
    check_str(r.err, "", "error output", file, line);
    *options = r.options;
    parse_result_destroy(&r);
}

#define PARSE_OK(OPTIONS, ...) \
    parse_ok_at(__FILE__, __LINE__, (OPTIONS), __VA_ARGS__, (char *) NULL)

/* What a command line must give one member of struct kd_options: a
 * number (an unsigned integer or a bool), a double or a string. */
struct option_expect {
    const char *name;           /* NULL: the end of the list. */
    size_t offset, size;
    enum { EXPECT_NUM, EXPECT_DOUBLE, EXPECT_STR } kind;
    uint64_t num;
    double dbl;
    const char *str;
};

#define MEMBER(F) \
    #F, offsetof(struct kd_options, F), sizeof ((struct kd_options *) 0)->F
#define IS(F, V) { MEMBER(F), EXPECT_NUM, .num = (V) }
#define IS_DOUBLE(F, V) { MEMBER(F), EXPECT_DOUBLE, .dbl = (V) }
#define IS_STR(F, V) { MEMBER(F), EXPECT_STR, .str = (V) }

/* A command line that is accepted (the words after "kernel_delay", to a
 * NULL), and what it must give. */
struct option_case {
    const char *args[10];
    struct option_expect expect[8];
};

/* Checks each of the 'n' 'cases': its command line is accepted, and each
 * member it names has the value it says. */
static void
check_option_cases_at(const char *file, int line,
                      const struct option_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const struct option_case *c = &cases[i];
        char *argv[KD_ARRAY_SIZE(c->args) + 2] = { "kernel_delay" };
        struct kd_ds what = KD_DS_EMPTY_INITIALIZER;
        struct parse_result r;

        kd_ds_put_cstr(&what, "kernel_delay");
        for (size_t j = 0; j < KD_ARRAY_SIZE(c->args) && c->args[j]; j++) {
            argv[j + 1] = (char *) c->args[j];
            kd_ds_put_format(&what, " %s", c->args[j]);
        }
        parse_argv(&r, argv);
        check_int(r.status, -1, kd_ds_cstr(&what), file, line);
        check_str(r.out, "", kd_ds_cstr(&what), file, line);
        check_str(r.err, "", kd_ds_cstr(&what), file, line);
        for (const struct option_expect *e = c->expect; e->name; e++) {
            const char *p = (const char *) &r.options + e->offset;
            char *expr = kd_xasprintf("%s: %s", kd_ds_cstr(&what), e->name);

            if (e->kind == EXPECT_STR) {
                check_str(*(const char *const *) p, e->str, expr, file,
                          line);
            } else if (e->kind == EXPECT_DOUBLE) {
                check_double(*(const double *) p, e->dbl, expr, file, line);
            } else if (e->size == sizeof(bool)) {
                check_uint(*(const bool *) p, e->num, expr, file, line);
            } else if (e->size == sizeof(unsigned int)) {
                check_uint(*(const unsigned int *) p, e->num, expr, file,
                           line);
            } else {
                check_uint(*(const uint64_t *) p, e->num, expr, file, line);
            }
            free(expr);
        }
        if (r.status < 0) {
            kd_options_destroy(&r.options);
        }
        parse_result_destroy(&r);
        kd_ds_destroy(&what);
    }
}

#define CHECK_OPTION_CASES(CASES) \
    check_option_cases_at(__FILE__, __LINE__, (CASES), KD_ARRAY_SIZE(CASES))

/* Checks that the arguments give a usage error: exit status 2, nothing on
 * the output, and the usage then "kernel_delay: error: MESSAGE" on the
 * error output. */
static void
usage_error_at(const char *file, int line, const char *message, ...)
{
    struct parse_result r;
    va_list args;
    char *expected;

    va_start(args, message);
    parse_va(&r, args);
    va_end(args);
    expected = kd_xasprintf("%skernel_delay: error: %s\n", USAGE, message);
    check_int(r.status, 2, "kd_options_parse() status", file, line);
    check_str(r.out, "", "output", file, line);
    check_str(r.err, expected, "error output", file, line);
    free(expected);
    parse_result_destroy(&r);
}

#define CHECK_USAGE_ERROR(MESSAGE, ...) \
    usage_error_at(__FILE__, __LINE__, (MESSAGE), __VA_ARGS__, \
                   (char *) NULL)

/* As usage_error_at(), with 'hint' (lines) after the error line. */
static void
usage_error_hint_at(const char *file, int line, const char *message,
                    const char *hint, ...)
{
    struct parse_result r;
    va_list args;
    char *expected;

    va_start(args, hint);
    parse_va(&r, args);
    va_end(args);
    expected = kd_xasprintf("%skernel_delay: error: %s\n%s", USAGE, message,
                            hint);
    check_int(r.status, 2, "kd_options_parse() status", file, line);
    check_str(r.out, "", "output", file, line);
    check_str(r.err, expected, "error output", file, line);
    free(expected);
    parse_result_destroy(&r);
}

#define CHECK_USAGE_ERROR_HINT(MESSAGE, HINT, ...) \
    usage_error_hint_at(__FILE__, __LINE__, (MESSAGE), (HINT), __VA_ARGS__, \
                        (char *) NULL)

static void
test_options_defaults(void)
{
    struct kd_options o;

    PARSE_OK(&o, NULL);
    CHECK_UINT(o.buffer_page_count, 1024);
    CHECK_UINT(o.sample_count, 1);
    CHECK_DOUBLE(o.sample_interval, 0);
    CHECK_DOUBLE(o.sample_time, 0.5);
    CHECK_UINT(o.stack_trace_size, 4096);
    CHECK_UINT(o.trigger_delta, 0);
    CHECK_UINT(o.debug, 0);
    CHECK_UINT(o.pid, 0);
    CHECK(!o.syscall_events);
    CHECK_UINT(o.syscall_events_ns, 0);
    CHECK(!o.skip_syscall_poll_events);
    CHECK(!o.skip_upcall_stats);
    CHECK(o.start_trigger == NULL);
    CHECK(o.stop_trigger == NULL);

    /* The exported defaults are the same. */
    CHECK_UINT(kd_options_defaults.buffer_page_count, 1024);
    CHECK_UINT(kd_options_defaults.sample_count, 1);
    CHECK_DOUBLE(kd_options_defaults.sample_interval, 0);
    CHECK_DOUBLE(kd_options_defaults.sample_time, 0.5);
    CHECK_UINT(kd_options_defaults.stack_trace_size, 4096);
    CHECK_UINT(kd_options_defaults.trigger_delta, 0);
    CHECK_UINT(kd_options_defaults.debug, 0);
    CHECK_UINT(kd_options_defaults.pid, 0);
    CHECK(!kd_options_defaults.syscall_events);
}

static void
test_options_long_and_short(void)
{
    static const struct option_case cases[] = {
        { { "-D", "4" }, { IS(debug, 4) } },
        { { "--debug", "5" }, { IS(debug, 5) } },
        { { "-D6" }, { IS(debug, 6) } },
        { { "--debug=7" }, { IS(debug, 7) } },
        { { "-p", "42" }, { IS(pid, 42) } },
        { { "--pid", "43" }, { IS(pid, 43) } },
        { { "-p44" }, { IS(pid, 44) } },
        { { "--pid=45" }, { IS(pid, 45) } },
        { { "-p", "0" }, { IS(pid, 0) } },
        { { "-p", "4194304" }, { IS(pid, 4194304) } },
        { { "-s", "5000" },
          { IS(syscall_events, true), IS(syscall_events_ns, 5000) } },
        { { "--syscall-events", "6000" },
          { IS(syscall_events, true), IS(syscall_events_ns, 6000) } },
        { { "-s7000" },
          { IS(syscall_events, true), IS(syscall_events_ns, 7000) } },
        { { "--syscall-events=8000" },
          { IS(syscall_events, true), IS(syscall_events_ns, 8000) } },
        { { "--buffer-page-count", "16" }, { IS(buffer_page_count, 16) } },
        { { "--buffer-page-count=2048" }, { IS(buffer_page_count, 2048) } },
        { { "--sample-count", "5" }, { IS(sample_count, 5) } },
        { { "--sample-count=100000000" }, { IS(sample_count, 100000000) } },
        { { "--sample-interval", "1.5" },
          { IS_DOUBLE(sample_interval, 1.5) } },
        { { "--sample-interval=0" }, { IS_DOUBLE(sample_interval, 0) } },
        { { "--sample-interval", "31536000" },
          { IS_DOUBLE(sample_interval, 31536000) } },
        { { "--sample-time", "2" }, { IS_DOUBLE(sample_time, 2) } },
        { { "--sample-time=.25" }, { IS_DOUBLE(sample_time, 0.25) } },
        { { "--sample-time", "1e1" }, { IS_DOUBLE(sample_time, 10) } },
        { { "--skip-syscall-poll-events" },
          { IS(skip_syscall_poll_events, true),
            IS(skip_upcall_stats, false) } },
        { { "--skip-upcall-stats" },
          { IS(skip_upcall_stats, true),
            IS(skip_syscall_poll_events, false) } },
        { { "--stack-trace-size", "0" }, { IS(stack_trace_size, 0) } },
        { { "--stack-trace-size=100" }, { IS(stack_trace_size, 100) } },
        { { "--start-trigger", "up#probe_a", "--stop-trigger",
            "up#probe_b" },
          { IS_STR(start_trigger, "up#probe_a"),
            IS_STR(stop_trigger, "up#probe_b") } },
        { { "--start-trigger=x=y", "--stop-trigger=" },
          { IS_STR(start_trigger, "x=y"), IS_STR(stop_trigger, "") } },
        { { "--trigger-delta", "100" }, { IS(trigger_delta, 100) } },
        { { "--trigger-delta=200" }, { IS(trigger_delta, 200) } },
        /* Everything at once; the others keep their defaults. */
        { { "-p", "9", "--sample-count", "3", "-s", "10",
            "--skip-upcall-stats" },
          { IS(pid, 9), IS(sample_count, 3), IS(syscall_events, true),
            IS(syscall_events_ns, 10), IS(skip_upcall_stats, true),
            IS(buffer_page_count, 1024), IS_DOUBLE(sample_time, 0.5) } },
    };

    CHECK_OPTION_CASES(cases);
}

static void
test_options_optional_arguments(void)
{
    static const struct option_case cases[] = {
        { { "-D" }, { IS(debug, 0x3f) } },
        { { "--debug" }, { IS(debug, 0x3f) } },
        { { "-D", "4" }, { IS(debug, 4) } },
        /* An option after it is not its argument. */
        { { "-D", "-p", "3" }, { IS(debug, 0x3f), IS(pid, 3) } },
        { { "-s" }, { IS(syscall_events, true), IS(syscall_events_ns, 0) } },
        { { "--syscall-events" },
          { IS(syscall_events, true), IS(syscall_events_ns, 0) } },
        { { "-s", "5000" },
          { IS(syscall_events, true), IS(syscall_events_ns, 5000) } },
        { { "-s", "--sample-count", "2" },
          { IS(syscall_events, true), IS(syscall_events_ns, 0),
            IS(sample_count, 2) } },
        { { "--trigger-delta" }, { IS(trigger_delta, 0) } },
        { { "--trigger-delta", "-p", "5" },
          { IS(trigger_delta, 0), IS(pid, 5) } },
    };

    CHECK_OPTION_CASES(cases);
}

static void
test_options_abbreviations(void)
{
    static const struct option_case cases[] = {
        { { "--sample-t", "2" },
          { IS_DOUBLE(sample_time, 2), IS(sample_count, 1) } },
        { { "--sample-c=3" }, { IS(sample_count, 3) } },
        { { "--sample-i", "4" }, { IS_DOUBLE(sample_interval, 4) } },
        { { "--pi", "9" }, { IS(pid, 9) } },
        { { "--deb" }, { IS(debug, 0x3f) } },
        { { "--skip-s" },
          { IS(skip_syscall_poll_events, true),
            IS(skip_upcall_stats, false) } },
        { { "--skip-u" }, { IS(skip_upcall_stats, true) } },
        { { "--b", "5" }, { IS(buffer_page_count, 8) } },
        { { "--stac", "7" }, { IS(stack_trace_size, 7) } },
        { { "--star", "a", "--sto", "b" },
          { IS_STR(start_trigger, "a"), IS_STR(stop_trigger, "b") } },
        { { "--t", "6" }, { IS(trigger_delta, 6) } },
    };

    CHECK_OPTION_CASES(cases);

    CHECK_USAGE_ERROR("ambiguous option: --sample could match "
                      "--sample-count, --sample-interval, --sample-time",
                      "--sample", "2");
    CHECK_USAGE_ERROR("ambiguous option: --st could match "
                      "--stack-trace-size, --start-trigger, "
                      "--stop-trigger", "--st", "2");
    CHECK_USAGE_ERROR("ambiguous option: --skip could match "
                      "--skip-syscall-poll-events, --skip-upcall-stats",
                      "--skip");
}

static void
test_options_buffer_page_count(void)
{
    static const struct option_case cases[] = {
        { { "--buffer-page-count", "1000" }, { IS(buffer_page_count, 1024) } },
        { { "--buffer-page-count", "0" }, { IS(buffer_page_count, 1) } },
        { { "--buffer-page-count", "1024" }, { IS(buffer_page_count, 1024) } },
        { { "--buffer-page-count", "1025" }, { IS(buffer_page_count, 2048) } },
        { { "--buffer-page-count", "1" }, { IS(buffer_page_count, 1) } },
        { { "--buffer-page-count", "3" }, { IS(buffer_page_count, 4) } },
        { { "--buffer-page-count", "1048576" },
          { IS(buffer_page_count, 1048576) } },
    };

    CHECK_OPTION_CASES(cases);
}

static void
test_options_bad_integers(void)
{
    CHECK_USAGE_ERROR("argument -p/--pid: must be positive", "-p", "-1");
    CHECK_USAGE_ERROR("argument -p/--pid: must be positive", "--pid=-7");
    CHECK_USAGE_ERROR("argument -p/--pid: must be an integer",
                      "-p", "abc");
    CHECK_USAGE_ERROR("argument -p/--pid: must be an integer",
                      "-p", "1.5");
    CHECK_USAGE_ERROR("argument -p/--pid: must be an integer",
                      "-p", "12abc");
    CHECK_USAGE_ERROR("argument -p/--pid: must be an integer", "--pid=");
    CHECK_USAGE_ERROR("argument -p/--pid: must be an integer",
                      "-p", "0x10");
    CHECK_USAGE_ERROR("argument -p/--pid: must be at most 4194304",
                      "-p", "4194305");
    CHECK_USAGE_ERROR("argument -p/--pid: must be at most 4194304",
                      "-p", "99999999999999999999999");
    CHECK_USAGE_ERROR("argument -p/--pid: must be an integer",
                      "-p", "99999999999999999999999x");

    CHECK_USAGE_ERROR("argument --sample-count: must be nonzero",
                      "--sample-count", "0");
    CHECK_USAGE_ERROR("argument --sample-count: must be nonzero",
                      "--sample-count", "000");
    CHECK_USAGE_ERROR("argument --sample-count: must be positive",
                      "--sample-count", "-3");
    CHECK_USAGE_ERROR("argument --sample-count: must be at most "
                      "100000000", "--sample-count", "100000001");
    CHECK_USAGE_ERROR("argument --sample-count: must be an integer",
                      "--sample-count", "many");

    CHECK_USAGE_ERROR("argument --buffer-page-count: must be at most "
                      "1048576", "--buffer-page-count", "1048577");
    CHECK_USAGE_ERROR("argument --buffer-page-count: must be positive",
                      "--buffer-page-count", "-1");
    CHECK_USAGE_ERROR("argument --stack-trace-size: must be at most "
                      "1048576", "--stack-trace-size",
                      "99999999999999999999999");
    CHECK_USAGE_ERROR("argument --trigger-delta: must be an integer",
                      "--trigger-delta", "abc");
    CHECK_USAGE_ERROR("argument --trigger-delta: must be positive",
                      "--trigger-delta", "-1");
    CHECK_USAGE_ERROR("argument -s/--syscall-events: must be positive",
                      "-s", "-5");
    CHECK_USAGE_ERROR("argument -s/--syscall-events: must be an integer",
                      "-s", "fast");
    CHECK_USAGE_ERROR("argument -s/--syscall-events: must be at most "
                      "9223372036854775807", "-s",
                      "18446744073709551615");
    CHECK_USAGE_ERROR("argument -D/--debug: must be at most 255",
                      "-D", "256");
}

static void
test_options_bad_floats(void)
{
    CHECK_USAGE_ERROR("argument --sample-time: invalid float value: 'abc'",
                      "--sample-time", "abc");
    CHECK_USAGE_ERROR("argument --sample-time: invalid float value: 'nan'",
                      "--sample-time", "nan");
    CHECK_USAGE_ERROR("argument --sample-time: invalid float value: 'NaN'",
                      "--sample-time", "NaN");
    CHECK_USAGE_ERROR("argument --sample-time: invalid float value: 'inf'",
                      "--sample-time", "inf");
    CHECK_USAGE_ERROR("argument --sample-interval: invalid float value: "
                      "'-inf'", "--sample-interval=-inf");
    /* "-inf" is no negative number to argparse, so it is an option. */
    CHECK_USAGE_ERROR("argument --sample-interval: expected one argument",
                      "--sample-interval", "-inf");
    CHECK_USAGE_ERROR("argument --sample-time: invalid float value: "
                      "'0x1p3'", "--sample-time", "0x1p3");
    CHECK_USAGE_ERROR("argument --sample-time: invalid float value: ''",
                      "--sample-time=");
    CHECK_USAGE_ERROR("argument --sample-time: invalid float value: '1e'",
                      "--sample-time", "1e");
    CHECK_USAGE_ERROR("argument --sample-time: invalid float value: "
                      "'1,5'", "--sample-time", "1,5");

    CHECK_USAGE_ERROR("argument --sample-time: must be greater than 0 and "
                      "at most 31536000 seconds", "--sample-time", "-1");
    CHECK_USAGE_ERROR("argument --sample-time: must be greater than 0 and "
                      "at most 31536000 seconds", "--sample-time", "0");
    CHECK_USAGE_ERROR("argument --sample-time: must be greater than 0 and "
                      "at most 31536000 seconds", "--sample-time",
                      "1e999");
    CHECK_USAGE_ERROR("argument --sample-time: must be greater than 0 and "
                      "at most 31536000 seconds", "--sample-time",
                      "31536000.5");
    CHECK_USAGE_ERROR("argument --sample-interval: must be 0 or more and "
                      "at most 31536000 seconds", "--sample-interval",
                      "-0.5");
    CHECK_USAGE_ERROR("argument --sample-interval: must be 0 or more and "
                      "at most 31536000 seconds", "--sample-interval",
                      "31536001");
}

static void
test_options_missing_argument(void)
{
    CHECK_USAGE_ERROR("argument -p/--pid: expected one argument", "-p");
    CHECK_USAGE_ERROR("argument -p/--pid: expected one argument",
                      "--pid");
    CHECK_USAGE_ERROR("argument -p/--pid: expected one argument",
                      "-p", "-s");
    CHECK_USAGE_ERROR("argument --sample-time: expected one argument",
                      "--sample-time", "--skip-upcall-stats");
    CHECK_USAGE_ERROR("argument --start-trigger: expected one argument",
                      "--start-trigger");
    CHECK_USAGE_ERROR("argument --buffer-page-count: expected one "
                      "argument", "-s", "--buffer-page-count");
}

static void
test_options_unrecognized(void)
{
    CHECK_USAGE_ERROR("unrecognized arguments: --bogus", "--bogus");
    CHECK_USAGE_ERROR("unrecognized arguments: --bogus=3", "--bogus=3");
    CHECK_USAGE_ERROR("unrecognized arguments: -x", "-x");
    CHECK_USAGE_ERROR("unrecognized arguments: foo", "foo");
    CHECK_USAGE_ERROR("unrecognized arguments: foo", "-p", "5", "foo");
    CHECK_USAGE_ERROR("unrecognized arguments: -", "-");
    CHECK_USAGE_ERROR("argument -h/--help: ignored explicit argument 'x'",
                      "--help=x");
    CHECK_USAGE_ERROR("argument --skip-upcall-stats: ignored explicit "
                      "argument '1'", "--skip-upcall-stats=1");
}

static void
test_options_help(void)
{
    static const char *const helps[] = { "--help", "-h", "--he" };

    for (size_t i = 0; i < KD_ARRAY_SIZE(helps); i++) {
        char *argv[] = { "kernel_delay", (char *) helps[i], NULL };
        struct parse_result r;

        parse_argv(&r, argv);
        CHECK_INT(r.status, 0);
        CHECK_STR(r.err, "");
        CHECK(!strncmp(r.out, USAGE, strlen(USAGE)));
        CHECK_CONTAINS(r.out, "\n  -h, --help            show this "
                       "help message and exit\n");
        CHECK_CONTAINS(r.out, "\n  -p VSWITCHD_PID, --pid VSWITCHD_PID\n"
                       "                        ovs-vswitch's PID\n");
        CHECK_CONTAINS(r.out, "\n  --sample-count RUNS   Number of "
                       "sample runs, default 1\n");
        CHECK_CONTAINS(r.out, "\n  --trigger-delta [DURATION_NS]\n");
        if (!strncmp(r.out, USAGE, strlen(USAGE))) {
            CHECK_STR(r.out + strlen(USAGE), help_rest);
        }
        parse_result_destroy(&r);
    }
}

static void
test_options_help_first(void)
{
    char *argv[] = { "kernel_delay", "--help", "-p", "abc", NULL };
    struct parse_result r;

    /* argparse acts on --help as soon as it sees it. */
    parse_argv(&r, argv);
    CHECK_INT(r.status, 0);
    CHECK_STR(r.err, "");
    CHECK(!strncmp(r.out, USAGE, strlen(USAGE)));
    parse_result_destroy(&r);
}

static void
test_options_version(void)
{
    char *argv[] = { "kernel_delay", "--version", NULL };
    struct parse_result r;

    parse_argv(&r, argv);
    CHECK_INT(r.status, 0);
    CHECK_STR(r.err, "");
    CHECK_STR(r.out, "kernel_delay " KD_VERSION "\n");
    CHECK_STR(r.out, "kernel_delay 0.1.0\n");
    /* The caller adds the libraries and the kernel features. */
    CHECK(r.options.version);
    parse_result_destroy(&r);
}

static void
test_options_last_wins(void)
{
    static const struct option_case cases[] = {
        { { "-p", "5", "-p", "6" }, { IS(pid, 6) } },
        { { "--sample-time", "1", "--sample-time", "2.5" },
          { IS_DOUBLE(sample_time, 2.5) } },
        { { "-s", "100", "-s" },
          { IS(syscall_events, true), IS(syscall_events_ns, 0) } },
        { { "-D", "4", "-D" }, { IS(debug, 0x3f) } },
        { { "-D", "-D", "2" }, { IS(debug, 2) } },
        { { "--start-trigger", "a", "--start-trigger", "b" },
          { IS_STR(start_trigger, "b") } },
        { { "--buffer-page-count", "5", "--buffer-page-count", "3" },
          { IS(buffer_page_count, 4) } },
    };

    CHECK_OPTION_CASES(cases);
}

/* The tests from here to test_options_flag_attached() check argparse
 * behaviours that the reference has and kd_options_parse() did not have
 * when they were written (each checked against the reference's parser
 * under Python 3.11). */

/* argparse accepts "-p=5" as "-p 5" (the part before '=' is an option
 * string). */
static void
test_options_short_equals(void)
{
    static const struct option_case cases[] = {
        { { "-p=5" }, { IS(pid, 5) } },
        { { "-s=100" }, { IS(syscall_events_ns, 100) } },
    };

    CHECK_OPTION_CASES(cases);
}

/* argparse collects every word it does not recognize and reports them
 * together, after it has processed all the options. */
static void
test_options_unrecognized_together(void)
{
    char *argv[] = { "kernel_delay", "foo", "--help", NULL };
    struct parse_result r;

    CHECK_USAGE_ERROR("unrecognized arguments: foo bar", "foo", "bar");
    CHECK_USAGE_ERROR("unrecognized arguments: --bogus 3", "--bogus", "3");
    CHECK_USAGE_ERROR("unrecognized arguments: foo -x", "foo", "-p", "1",
                      "-x");
    CHECK_USAGE_ERROR("argument -p/--pid: must be an integer",
                      "foo", "-p", "abc");

    parse_argv(&r, argv);
    CHECK_INT(r.status, 0);
    CHECK_STR(r.err, "");
    CHECK(!strncmp(r.out, USAGE, strlen(USAGE)));
    parse_result_destroy(&r);
}

/* In the ambiguous-option error argparse names the whole word. */
static void
test_options_ambiguous_with_value(void)
{
    CHECK_USAGE_ERROR("ambiguous option: --sample=2 could match "
                      "--sample-count, --sample-interval, --sample-time",
                      "--sample=2");
}

/* -D has the reference's type=int, whose error argparse words itself. */
static void
test_options_debug_invalid_int(void)
{
    CHECK_USAGE_ERROR("argument -D/--debug: invalid int value: 'abc'",
                      "-D", "abc");
    CHECK_USAGE_ERROR("argument -D/--debug: invalid int value: '1.5'",
                      "--debug=1.5");
}

/* int("-0") is 0 in Python: neither negative nor out of range. */
static void
test_options_minus_zero(void)
{
    struct kd_options o;
    uint64_t u = 99;

    PARSE_OK(&o, "-p", "-0");
    CHECK_UINT(o.pid, 0);
    CHECK_USAGE_ERROR("argument --sample-count: must be nonzero",
                      "--sample-count", "-0");
    CHECK_INT(kd_parse_u64("-0", 0, 10, &u), 0);
    CHECK_UINT(u, 0);
}

/* float("1e-400") is 0.0 in Python, a valid --sample-interval. */
static void
test_options_float_underflow(void)
{
    struct kd_options o;
    double d = 99;

    PARSE_OK(&o, "--sample-interval", "1e-400");
    CHECK_DOUBLE(o.sample_interval, 0);
    CHECK_INT(kd_parse_seconds("1e-400", 0, 10, &d), 0);
    CHECK_DOUBLE(d, 0);
}

/* argparse takes a word starting with '-' as an option's argument only
 * when it matches '^-\d+$|^-\d*\.\d+$' (a negative number). */
static void
test_options_negative_number_rule(void)
{
    CHECK_USAGE_ERROR("argument --sample-time: expected one argument",
                      "--sample-time", "-1e5");
    CHECK_USAGE_ERROR("argument -p/--pid: expected one argument",
                      "-p", "-5x");
    CHECK_USAGE_ERROR("argument --sample-interval: expected one argument",
                      "--sample-interval", "-1.");
    /* Negative numbers proper are arguments. */
    CHECK_USAGE_ERROR("argument --sample-interval: must be 0 or more and "
                      "at most 31536000 seconds", "--sample-interval",
                      "-.5");
    CHECK_USAGE_ERROR("argument -p/--pid: must be positive", "-p", "-12");
}

/* argparse: a flag with characters attached that are no option. */
static void
test_options_flag_attached(void)
{
    CHECK_USAGE_ERROR("argument -h/--help: ignored explicit argument 'foo'",
                      "-hfoo");
}

static void
test_next_power_of_two(void)
{
    CHECK_UINT(kd_next_power_of_two(0), 1);
    CHECK_UINT(kd_next_power_of_two(1), 1);
    CHECK_UINT(kd_next_power_of_two(2), 2);
    CHECK_UINT(kd_next_power_of_two(3), 4);
    CHECK_UINT(kd_next_power_of_two(5), 8);
    CHECK_UINT(kd_next_power_of_two(1000), 1024);
    CHECK_UINT(kd_next_power_of_two(1023), 1024);
    CHECK_UINT(kd_next_power_of_two(1024), 1024);
    CHECK_UINT(kd_next_power_of_two(1025), 2048);
    CHECK_UINT(kd_next_power_of_two(1u << 20), 1u << 20);
    CHECK_UINT(kd_next_power_of_two((1u << 20) + 1), 1u << 21);
    CHECK_UINT(kd_next_power_of_two(1u << 31), 1u << 31);
}

static void
test_options_max_threads(void)
{
    static const struct option_case cases[] = {
        { { "--max-threads", "100000" }, { IS(max_threads, 100000) } },
        { { "--max-t=64" }, { IS(max_threads, 64) } },
    };

    CHECK_OPTION_CASES(cases);

    CHECK_UINT(kd_options_defaults.max_threads, 8192);
    CHECK_USAGE_ERROR("argument --max-threads: must be at least 64",
                      "--max-threads", "63", NULL);
    CHECK_USAGE_ERROR("argument --max-threads: must be at most 1048576",
                      "--max-threads", "1048577", NULL);
}

static void
test_options_ours(void)
{
    struct kd_options o;

    /* Prefixes the reference accepts keep their meaning. */
    PARSE_OK(&o, "--t", "6", NULL);
    CHECK_UINT(o.trigger_delta, 6);
    PARSE_OK(&o, "--th", "^handler", "--ti", "1,22,333", NULL);
    CHECK_STR(o.thread_regex, "^handler");
    CHECK_UINT(o.n_tids, 3);
    if (o.n_tids == 3) {
        CHECK_UINT(o.tids[0], 1);
        CHECK_UINT(o.tids[2], 333);
    }
    kd_options_destroy(&o);
    PARSE_OK(&o, "--summary", "--json", "--histogram", "--list-probes",
             NULL);
    CHECK(o.summary && o.json && o.histogram && o.list_probes);
    CHECK_USAGE_ERROR("argument --thread: invalid regular expression: "
                      "Unmatched ( or \\(", "--thread", "(", NULL);
    /* Undefined in POSIX, gigabytes in glibc: refused. */
    CHECK_USAGE_ERROR("argument --thread: invalid regular expression: a "
                      "repetition operator after another one", "--thread",
                      "pk++", NULL);
    CHECK_USAGE_ERROR("argument --thread: invalid regular expression: a "
                      "repetition operator after another one", "--thread",
                      "a{2}*", NULL);
    CHECK_USAGE_ERROR("argument --thread: invalid regular expression: a "
                      "repetition operator after another one", "--thread",
                      "^(x|y)?+$", NULL);
    /* Not repetitions: escaped, in brackets, or apart. */
    PARSE_OK(&o, "--thread", "a\\++", NULL);
    PARSE_OK(&o, "--thread", "[+*]+", NULL);
    PARSE_OK(&o, "--thread", "[[:alpha:]+]*", NULL);
    PARSE_OK(&o, "--thread", "^(handler|revalidator)[0-9]+$", NULL);
    PARSE_OK(&o, "--thread", "a+b*c?d{1,2}", NULL);
    CHECK_USAGE_ERROR("argument --tid: must be a comma-separated list of "
                      "thread ids", "--tid", "1,,2", NULL);
    CHECK_USAGE_ERROR("argument --tid: must be an integer", "--tid", "1,x",
                      NULL);
    CHECK_USAGE_ERROR("argument --tid: must be nonzero", "--tid", "0",
                      NULL);
    CHECK_USAGE_ERROR("ambiguous option: --s could match --syscall-events, "
                      "--sample-count, --sample-interval, --sample-time, "
                      "--skip-syscall-poll-events, --skip-upcall-stats, "
                      "--stack-trace-size, --start-trigger, --stop-trigger, "
                      "--summary", "--s", "1", NULL);
}

/* --long-poll-events: its threshold, the needs it makes, and the options
 * that shape samples, which it excludes, named as argparse names two
 * options of a mutually exclusive group. */
static void
test_options_long_poll(void)
{
    struct kd_options o;
    struct kd_needs needs;

    PARSE_OK(&o, NULL);
    CHECK(!o.long_poll);
    CHECK(!o.sample_count_set);
    needs = kd_options_needs(&o);
    CHECK(needs.stats && !needs.acct && !needs.gaps && !needs.ran);
    CHECK(!needs.ring_buffer);
    CHECK(needs.upcalls);
    PARSE_OK(&o, "--skip-upcall-stats", NULL);
    needs = kd_options_needs(&o);
    CHECK(!needs.upcalls);

    PARSE_OK(&o, "--long-poll-events", NULL);
    CHECK(o.long_poll);
    CHECK_UINT(o.long_poll_ns, 1000000000);
    needs = kd_options_needs(&o);
    CHECK(!needs.stats && needs.acct && needs.gaps && !needs.ran);
    CHECK(needs.ring_buffer);
    /* No sample to report upcalls in. */
    CHECK(!needs.upcalls);

    PARSE_OK(&o, "--long-poll-events", "50000000", "--sample-count", "3",
             "--thread", "^handler", "--json", NULL);
    CHECK_UINT(o.long_poll_ns, 50000000);
    CHECK_UINT(o.sample_count, 3);
    CHECK(o.sample_count_set && o.json);
    PARSE_OK(&o, "--long-poll-events=0", NULL);
    CHECK_UINT(o.long_poll_ns, 0);
    PARSE_OK(&o, "--long", "7", "-p", "1", NULL);
    CHECK_UINT(o.long_poll_ns, 7);
    CHECK_UINT(o.pid, 1);

    /* --summary and --json count who ran instead per sample. */
    PARSE_OK(&o, "--summary", NULL);
    needs = kd_options_needs(&o);
    CHECK(needs.stats && needs.acct && !needs.gaps && needs.ran);
    PARSE_OK(&o, "--json", NULL);
    needs = kd_options_needs(&o);
    CHECK(needs.acct && needs.ran);

    /* A unit is taken (it was refused before units were). */
    PARSE_OK(&o, "--long-poll-events=1s", NULL);
    CHECK_UINT(o.long_poll_ns, 1000000000);
    CHECK_USAGE_ERROR("argument --long-poll-events: must be an integer",
                      "--long-poll-events=s", NULL);
    CHECK_USAGE_ERROR("argument --long-poll-events: must be positive",
                      "--long-poll-events", "-5", NULL);
    CHECK_USAGE_ERROR("argument --long-poll-events: not allowed with "
                      "argument --start-trigger", "--start-trigger",
                      "up:main", "--long-poll-events", NULL);
    CHECK_USAGE_ERROR("argument --stop-trigger: not allowed with argument "
                      "--long-poll-events", "--long-poll-events",
                      "--stop-trigger", "ur:main", NULL);
    CHECK_USAGE_ERROR("argument -s/--syscall-events: not allowed with "
                      "argument --long-poll-events", "--long-poll-events",
                      "5", "-s", NULL);
    CHECK_USAGE_ERROR("argument --long-poll-events: not allowed with "
                      "argument --sample-time", "--sample-time", "2",
                      "--long-poll-events", NULL);
    CHECK_USAGE_ERROR("argument --long-poll-events: not allowed with "
                      "argument --summary", "--summary",
                      "--long-poll-events", NULL);
    CHECK_USAGE_ERROR("argument --histogram: not allowed with argument "
                      "--long-poll-events", "--long-poll-events",
                      "--histogram", NULL);
    CHECK_USAGE_ERROR("ambiguous option: --l could match --list-probes, "
                      "--long-poll-events", "--l", NULL);
}

/* Every duration option takes units; a plain number keeps its unit. */
static void
test_options_durations(void)
{
    static const struct option_case cases[] = {
        { { "--long-poll-events", "50ms" }, { IS(long_poll_ns, 50000000) } },
        { { "--long-poll-events", "1e6" }, { IS(long_poll_ns, 1000000) } },
        { { "--long-poll-events", "50000000" },
          { IS(long_poll_ns, 50000000) } },
        { { "-s", "1.5ms" },
          { IS(syscall_events, true), IS(syscall_events_ns, 1500000) } },
        { { "-s1000" }, { IS(syscall_events_ns, 1000) } },
        { { "--syscall-events=2us" }, { IS(syscall_events_ns, 2000) } },
        { { "--trigger-delta", "1s" }, { IS(trigger_delta, 1000000000) } },
        { { "--trigger-delta", "300" }, { IS(trigger_delta, 300) } },
        /* Seconds: a plain number is seconds, as before. */
        { { "--sample-time", "500ms" }, { IS_DOUBLE(sample_time, 0.5) } },
        { { "--sample-time", "2" }, { IS_DOUBLE(sample_time, 2) } },
        { { "--sample-time", "1ns" }, { IS_DOUBLE(sample_time, 1e-9) } },
        { { "--sample-interval", "1.5s" },
          { IS_DOUBLE(sample_interval, 1.5) } },
        { { "--sample-interval", "0us" }, { IS_DOUBLE(sample_interval, 0) } },
        { { "--sample-interval", "31536000s" },
          { IS_DOUBLE(sample_interval, 31536000) } },
    };

    CHECK_OPTION_CASES(cases);

    CHECK_USAGE_ERROR("argument --long-poll-events: invalid duration "
                      "'5 ms': a number then, with no space, ns, us, ms or "
                      "s (50ms, 1.5s, 1e6)", "--long-poll-events", "5 ms",
                      NULL);
    CHECK_USAGE_ERROR("argument -s/--syscall-events: invalid duration "
                      "'1.5ns': not a whole number of nanoseconds", "-s",
                      "1.5ns", NULL);
    CHECK_USAGE_ERROR("argument -s/--syscall-events: invalid duration "
                      "'1.5': not a whole number of nanoseconds", "-s",
                      "1.5", NULL);
    CHECK_USAGE_ERROR("argument --trigger-delta: must be an integer",
                      "--trigger-delta", "ms", NULL);
    CHECK_USAGE_ERROR("argument --trigger-delta: must be positive",
                      "--trigger-delta=-1ms", NULL);
    CHECK_USAGE_ERROR("argument --trigger-delta: invalid duration '10sec': "
                      "a number then, with no space, ns, us, ms or s "
                      "(50ms, 1.5s, 1e6)", "--trigger-delta", "10sec",
                      NULL);
    CHECK_USAGE_ERROR("argument -s/--syscall-events: must be at most "
                      "9223372036854775807", "-s", "1e19", NULL);
    CHECK_USAGE_ERROR("argument -s/--syscall-events: must be at most "
                      "9223372036854775807", "-s", "9223372037s", NULL);
    /* "-1ms" is no negative number to argparse: an option. */
    CHECK_USAGE_ERROR("unrecognized arguments: -1ms", "-s", "-1ms", NULL);
    CHECK_USAGE_ERROR("argument --sample-time: must be greater than 0 and "
                      "at most 31536000 seconds", "--sample-time", "0ms",
                      NULL);
    CHECK_USAGE_ERROR("argument --sample-time: must be greater than 0 and "
                      "at most 31536000 seconds", "--sample-time",
                      "31536000001ms", NULL);
    CHECK_USAGE_ERROR("argument --sample-interval: must be 0 or more and "
                      "at most 31536000 seconds", "--sample-interval=-1s",
                      NULL);
    CHECK_USAGE_ERROR("argument --sample-time: invalid duration '0.1ns': "
                      "not a whole number of nanoseconds", "--sample-time",
                      "0.1ns", NULL);
    CHECK_USAGE_ERROR("argument --sample-time: invalid float value: "
                      "'5 ms'", "--sample-time", "5 ms", NULL);
    CHECK_USAGE_ERROR("argument --sample-time: invalid float value: "
                      "'5hours'", "--sample-time", "5hours", NULL);
}

/* A misspelt long option: argparse's error, then the closest options. */
static void
test_options_suggest(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    CHECK_USAGE_ERROR_HINT("unrecognized arguments: --sampel-time 2",
                           "kernel_delay: unknown option --sampel-time: did "
                           "you mean --sample-time?\n",
                           "--sampel-time", "2");
    CHECK_USAGE_ERROR_HINT("unrecognized arguments: --jsn",
                           "kernel_delay: unknown option --jsn: did you "
                           "mean --json?\n", "--jsn");
    CHECK_USAGE_ERROR_HINT("unrecognized arguments: --summray=3",
                           "kernel_delay: unknown option --summray: did you "
                           "mean --summary?\n", "--summray=3");
    CHECK_USAGE_ERROR_HINT("unrecognized arguments: --sampel",
                           "kernel_delay: unknown option --sampel: did you "
                           "mean --sample-count, --sample-interval or "
                           "--sample-time?\n", "--sampel");
    CHECK_USAGE_ERROR_HINT("unrecognized arguments: --hlep --pdi 3 foo",
                           "kernel_delay: unknown option --hlep: did you "
                           "mean --help?\n"
                           "kernel_delay: unknown option --pdi: did you "
                           "mean --pid?\n", "--hlep", "--pdi", "3", "foo");
    /* Nothing close: no suggestion (test_options_unrecognized). */
    CHECK_USAGE_ERROR("unrecognized arguments: --x", "--x");
    CHECK_USAGE_ERROR("unrecognized arguments: --zzzzzzzz",
                      "--zzzzzzzz");
    /* Not options: after "--", or one dash. */
    CHECK_USAGE_ERROR("unrecognized arguments: --jsn", "--", "--jsn");
    CHECK_USAGE_ERROR("unrecognized arguments: -jsn", "-jsn");
    /* Another error first: no suggestion. */
    CHECK_USAGE_ERROR("argument -p/--pid: must be an integer", "--jsn",
                      "-p", "x");

    CHECK(kd_usage_suggest(kd_options_table(), "trigger-dleta", 13, &ds));
    CHECK_STR(kd_ds_cstr(&ds), "--trigger-delta");
    kd_ds_destroy(&ds);
    CHECK(!kd_usage_suggest(kd_options_table(), "ab", 2, &ds));
    CHECK_STR(kd_ds_cstr(&ds), "");
    kd_ds_destroy(&ds);
}

/* --profile-hz: 0 to 10000, only with --long-poll-events (with -p or
 * --tid too); the profile needs a stack map (--stack-trace-size).
 * --folded needs the profile. */
static void
test_options_profile_hz(void)
{
    struct kd_options o;
    struct kd_needs needs;

    PARSE_OK(&o, "--long-poll-events", NULL);
    CHECK_INT(o.profile_hz, 0);
    CHECK(!kd_options_needs(&o).profile);
    PARSE_OK(&o, "--long-poll-events", "--profile-hz", "99", "-p", "1",
             NULL);
    CHECK_INT(o.profile_hz, 99);
    needs = kd_options_needs(&o);
    CHECK(needs.profile && needs.gaps);
    PARSE_OK(&o, "--profile-hz=10000", "--tid", "7", "--long-poll-events",
             NULL);
    CHECK_INT(o.profile_hz, 10000);
    kd_options_destroy(&o);
    PARSE_OK(&o, "--long-poll-events", "--profile-hz", "99",
             "--stack-trace-size", "0", NULL);
    CHECK(!kd_options_needs(&o).profile);
    /* In time and trigger modes too; --off-cpu needs the accounts. */
    PARSE_OK(&o, "--profile-hz", "99", NULL);
    needs = kd_options_needs(&o);
    CHECK(needs.profile && !needs.gaps);
    CHECK_INT(needs.profile_hz, 99);
    PARSE_OK(&o, "--off-cpu", NULL);
    needs = kd_options_needs(&o);
    CHECK(needs.blocked && needs.acct && !needs.profile);
    CHECK_USAGE_ERROR("argument --profile-hz: must be at most 10000",
                      "--long-poll-events", "--profile-hz", "10001", NULL);

    /* --folded: with --profile-hz. */
    PARSE_OK(&o, "--long-poll-events", "--profile-hz", "99", "--folded",
             "/tmp/f", NULL);
    CHECK_STR(o.folded, "/tmp/f");
    CHECK_USAGE_ERROR("argument --folded: requires --profile-hz or "
                      "--off-cpu",
                      "--long-poll-events", "--folded", "/tmp/f", NULL);
    PARSE_OK(&o, "--long-poll-events", "--off-cpu", "--folded", "/tmp/f",
             NULL);
    CHECK(o.off_cpu);
    CHECK_STR(o.folded, "/tmp/f");
    CHECK_USAGE_ERROR("argument --folded: requires --long-poll-events",
                      "--folded", "/tmp/f", NULL);
}

/* --trace-dir and --on-long-poll: with --long-poll-events; their
 * companions only with them; the history rounded up to a power of 2, and
 * in the program only with a trace. */
static void
test_options_evidence(void)
{
    struct kd_options o;
    struct kd_needs needs;

    PARSE_OK(&o, "--long-poll-events", NULL);
    CHECK(!o.trace_dir && !o.on_long_poll);
    CHECK_INT(o.trace_history, 256);
    CHECK_INT(o.trace_max_mib, 64);
    CHECK_INT(o.trace_max_files, 256);
    CHECK_UINT(o.on_long_poll_period_ns, 60000000000ull);
    needs = kd_options_needs(&o);
    CHECK(!needs.trace);
    CHECK_INT(needs.trace_history, 0);
    PARSE_OK(&o, "--long-poll-events", "--trace-dir", "/tmp/t",
             "--trace-history", "100", "--trace-max-mib", "2",
             "--trace-max-files", "3", NULL);
    CHECK_STR(o.trace_dir, "/tmp/t");
    CHECK_INT(o.trace_history, 128);
    CHECK_INT(o.trace_max_mib, 2);
    CHECK_INT(o.trace_max_files, 3);
    needs = kd_options_needs(&o);
    CHECK(needs.trace && needs.gaps);
    CHECK_INT(needs.trace_history, 128);
    PARSE_OK(&o, "--long-poll-events", "--on-long-poll", "true",
             "--on-long-poll-period", "2s", NULL);
    CHECK_STR(o.on_long_poll, "true");
    CHECK_UINT(o.on_long_poll_period_ns, 2000000000ull);
    CHECK(!kd_options_needs(&o).trace);
    CHECK_USAGE_ERROR("argument --trace-dir: requires --long-poll-events",
                      "--trace-dir", "/tmp/t", NULL);
    CHECK_USAGE_ERROR("argument --on-long-poll: requires "
                      "--long-poll-events", "--on-long-poll", "true", NULL);
    CHECK_USAGE_ERROR("argument --trace-history: requires --trace-dir",
                      "--long-poll-events", "--trace-history", "64", NULL);
    CHECK_USAGE_ERROR("argument --trace-max-files: requires --trace-dir",
                      "--long-poll-events", "--trace-max-files", "9", NULL);
    CHECK_USAGE_ERROR("argument --on-long-poll-period: requires "
                      "--on-long-poll", "--long-poll-events",
                      "--on-long-poll-period", "1s", NULL);
    CHECK_USAGE_ERROR("argument --trace-history: must be at least 16",
                      "--long-poll-events", "--trace-dir", "/t",
                      "--trace-history", "15", NULL);
    CHECK_USAGE_ERROR("argument --trace-history: must be at most 4096",
                      "--long-poll-events", "--trace-dir", "/t",
                      "--trace-history", "4097", NULL);
}

/* --wait-target: only with --long-poll-events, never with -p or --tid (a
 * restarted ovs-vswitchd has new IDs); --node-name
 * and its default from $KD_NODE_NAME. */
static void
test_options_fleet(void)
{
    struct kd_options o;

    unsetenv("KD_NODE_NAME");
    PARSE_OK(&o, "--long-poll-events", NULL);
    CHECK(!o.wait_target);
    CHECK(!o.node_name);
    PARSE_OK(&o, "--long-poll-events", "--wait-target", NULL);
    CHECK(o.wait_target);
    PARSE_OK(&o, "--wait-target", "--long-poll-events=5", NULL);
    CHECK(o.wait_target && o.long_poll);
    CHECK_USAGE_ERROR("argument --wait-target: requires --long-poll-events",
                      "--wait-target", NULL);
    CHECK_USAGE_ERROR("argument --wait-target: requires --long-poll-events",
                      "--json", "--wait-target", "--sample-time", "1",
                      NULL);
    CHECK_USAGE_ERROR("argument --wait-target: not allowed with argument "
                      "-p/--pid", "--long-poll-events", "--wait-target",
                      "-p", "1", NULL);
    CHECK_USAGE_ERROR("argument --wait-target: not allowed with argument "
                      "--tid", "--long-poll-events", "--tid", "7",
                      "--wait-target", NULL);
    PARSE_OK(&o, "--long-poll-events", "--tid", "7", NULL);
    CHECK(o.n_tids == 1);
    kd_options_destroy(&o);

    PARSE_OK(&o, "--node-name", "worker-1", NULL);
    CHECK_STR(o.node_name, "worker-1");
    CHECK_USAGE_ERROR("argument --node-name: expected one argument",
                      "--node-name", NULL);
    setenv("KD_NODE_NAME", "from-env", 1);
    PARSE_OK(&o, "--json", NULL);
    CHECK_STR(o.node_name, "from-env");
    PARSE_OK(&o, "--node-name=given", NULL);
    CHECK_STR(o.node_name, "given");
    setenv("KD_NODE_NAME", "", 1);
    PARSE_OK(&o, "--json", NULL);
    CHECK(!o.node_name);
    unsetenv("KD_NODE_NAME");
}

/* The lists of options kept beside the table, in other languages: each
 * is checked against the table (kd_options_table()), both ways, so that
 * an option added to the table and not to one of them, or left in one
 * after it left the table, fails here. */

#ifndef KD_SRCDIR
#define KD_SRCDIR "."
#endif

/* File 'rel' of the source tree, whole, or NULL after a failed check. */
static char *
read_source_file(const char *rel)
{
    char *path = kd_xasprintf("%s/%s", KD_SRCDIR, rel);
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    FILE *f = fopen(path, "r");
    char buf[4096];
    size_t n;

    if (!f) {
        check_fail(__FILE__, __LINE__, "%s: %s", path, strerror(errno));
        free(path);
        return NULL;
    }
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        kd_ds_put_buffer(&ds, buf, n);
    }
    fclose(f);
    free(path);
    return kd_ds_steal_cstr(&ds);
}

/* Option 'def' as --help and the man page's OPTIONS name it: "-D
 * [DEBUG], --debug [DEBUG]". */
static char *
option_tag(const struct kd_option_def *def)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    if (def->short_name) {
        kd_usage_put_invocation(&ds, def, true);
        kd_ds_put_cstr(&ds, ", ");
    }
    kd_usage_put_invocation(&ds, def, false);
    return kd_ds_steal_cstr(&ds);
}

/* Option 'def' as the usage and the man page's SYNOPSIS show it: "[-D
 * [DEBUG]]", "[--sample-time SECONDS]". */
static char *
option_synopsis(const struct kd_option_def *def)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    kd_ds_put_char(&ds, '[');
    kd_usage_put_invocation(&ds, def, def->short_name);
    kd_ds_put_char(&ds, ']');
    return kd_ds_steal_cstr(&ds);
}

/* The option of the table whose --help tag (if 'tag') or synopsis is 's',
 * or NULL. */
static const struct kd_option_def *
option_shown_as(const char *s, bool tag)
{
    const struct kd_option_table *t = kd_options_table();

    for (size_t i = 0; i < t->n; i++) {
        char *shown = tag ? option_tag(&t->defs[i])
                          : option_synopsis(&t->defs[i]);
        bool same = !strcmp(shown, s);

        free(shown);
        if (same) {
            return &t->defs[i];
        }
    }
    return NULL;
}

/* The option of the table named 'word' ("--pid" or "-p"), or NULL. */
static const struct kd_option_def *
option_named(const char *word)
{
    const struct kd_option_table *t = kd_options_table();

    for (size_t i = 0; i < t->n; i++) {
        const struct kd_option_def *def = &t->defs[i];

        if ((!strncmp(word, "--", 2) && !strcmp(word + 2, def->long_name))
            || (def->short_name && word[0] == '-' && word[1] == def->short_name
                && !word[2])) {
            return def;
        }
    }
    return NULL;
}

/* Section 'name' of man page 'man' (roff, "\-" already "-"): from the
 * line after ".SH NAME" to the next ".SH", as a new string. */
static char *
man_section(const char *man, const char *name)
{
    char *mark = kd_xasprintf("\n.SH %s\n", name);
    const char *start = strstr(man, mark);
    const char *end;
    char *section;

    if (!start) {
        check_fail(__FILE__, __LINE__, "man page: no section %s", name);
        free(mark);
        return kd_xstrdup("");
    }
    start += strlen(mark);
    end = strstr(start, "\n.SH ");
    section = kd_xasprintf("%.*s\n", (int) (end ? end - start
                                                : (ptrdiff_t) strlen(start)),
                           start);
    free(mark);
    return section;
}

/* The man page: each option's tag in OPTIONS (the line after ".TP") is
 * its --help tag, once; its SYNOPSIS has each option, once, as the usage
 * shows it; and neither names anything that is not an option. */
static void
test_options_man_page(void)
{
    const struct kd_option_table *t = kd_options_table();
    char *raw = read_source_file("man/kernel_delay.8");
    struct kd_ds man = KD_DS_EMPTY_INITIALIZER;
    char *options, *synopsis;
    size_t *tags, *synopses;

    if (!raw) {
        return;
    }
    for (const char *p = raw; *p; p++) {
        if (p[0] == '\\' && p[1] == '-') {
            continue;
        }
        kd_ds_put_char(&man, *p);
    }
    free(raw);

    tags = kd_xcalloc(t->n, sizeof *tags);
    options = man_section(kd_ds_cstr(&man), "OPTIONS");
    for (const char *p = strstr(options, ".TP\n"); p;
         p = strstr(p + 1, ".TP\n")) {
        const char *tag = p + 4;
        char *line = kd_xasprintf("%.*s", (int) strcspn(tag, "\n"), tag);
        const struct kd_option_def *def = option_shown_as(line, true);

        if (def) {
            tags[def - t->defs]++;
        } else if (line[0] == '-') {
            check_fail(__FILE__, __LINE__, "man page OPTIONS: \"%s\" is no "
                       "option's tag (as --help shows it)", line);
        }
        free(line);
    }

    /* The SYNOPSIS: what is in brackets, outside any other brackets. */
    synopses = kd_xcalloc(t->n, sizeof *synopses);
    synopsis = man_section(kd_ds_cstr(&man), "SYNOPSIS");
    for (const char *p = synopsis; *p; p++) {
        const char *start = p;
        int depth = 0;

        if (*p != '[') {
            continue;
        }
        for (; *p; p++) {
            depth += (*p == '[') - (*p == ']');
            if (!depth) {
                break;
            }
        }
        if (*p) {
            char *group = kd_xasprintf("%.*s", (int) (p - start + 1), start);
            const struct kd_option_def *def = option_shown_as(group, false);

            if (def) {
                synopses[def - t->defs]++;
            } else {
                check_fail(__FILE__, __LINE__, "man page SYNOPSIS: \"%s\" is "
                           "no option (as the usage shows it)", group);
            }
            free(group);
        } else {
            p--;
        }
    }

    for (size_t i = 0; i < t->n; i++) {
        char *tag = option_tag(&t->defs[i]);

        if (tags[i] != 1) {
            check_fail(__FILE__, __LINE__, "man page OPTIONS: \".TP\" then "
                       "\"%s\" %zu times, not once", tag, tags[i]);
        }
        if (synopses[i] != 1) {
            check_fail(__FILE__, __LINE__, "man page SYNOPSIS: --%s %zu "
                       "times, not once", t->defs[i].long_name,
                       synopses[i]);
        }
        free(tag);
    }
    free(tags);
    free(synopses);
    free(options);
    free(synopsis);
    kd_ds_destroy(&man);
}

/* Whether word 'w' is in the list of words 'list' (separated by white
 * space, or by '|' as in a shell pattern). */
static bool
word_listed(const char *list, const char *w)
{
    size_t len = strlen(w);

    for (const char *p = list; *p; ) {
        size_t n;

        p += strspn(p, " \t\n\\|");
        n = strcspn(p, " \t\n\\|");
        if (n == len && !strncmp(p, w, n)) {
            return true;
        }
        p += n;
    }
    return false;
}

/* The bash completion: its list of options ('opts') has each option of
 * the table, by each of its names, and nothing else; each option that
 * takes a value has a branch of its own in "case $prev", which completes
 * file names for a FILE, and one that takes none has no branch. */
static void
test_options_completion(void)
{
    const struct kd_option_table *t = kd_options_table();
    char *text = read_source_file("completion/kernel_delay");
    const char *start, *p;
    char *opts, *cases;
    size_t *branches;

    if (!text) {
        return;
    }
    start = strstr(text, "local opts=\"");
    if (!CHECK(start != NULL)) {
        free(text);
        return;
    }
    start += strlen("local opts=\"");
    opts = kd_xasprintf("%.*s", (int) strcspn(start, "\""), start);
    for (p = opts; *p; ) {
        size_t n;
        char *w;

        p += strspn(p, " \t\n");
        n = strcspn(p, " \t\n");
        if (!n) {
            break;
        }
        w = kd_xasprintf("%.*s", (int) n, p);
        if (!option_named(w)) {
            check_fail(__FILE__, __LINE__, "completion: \"%s\" is no "
                       "option", w);
        }
        free(w);
        p += n;
    }

    /* "case $prev in ... esac": each branch's patterns, then its body. */
    start = strstr(text, "case $prev in\n");
    if (!CHECK(start != NULL)) {
        free(opts);
        free(text);
        return;
    }
    start += strlen("case $prev in\n");
    cases = kd_xasprintf("%.*s", (int) (strstr(start, "esac") - start),
                         start);
    branches = kd_xcalloc(t->n, sizeof *branches);
    for (p = cases; *p; ) {
        size_t n = strcspn(p, ")");
        const char *end = strstr(p + n, ";;");
        char *patterns = kd_xasprintf("%.*s", (int) n, p);
        char *body = kd_xasprintf("%.*s", (int) (end ? end - p - n : 0),
                                  p + n);

        for (size_t i = 0; i < t->n; i++) {
            const struct kd_option_def *def = &t->defs[i];
            char *name = kd_xasprintf("--%s", def->long_name);
            char shrt[3] = { '-', def->short_name, '\0' };

            if (word_listed(patterns, name)) {
                branches[i]++;
                if (def->metavar && !strcmp(def->metavar, "FILE")
                    && !strstr(body, "compgen -f")) {
                    check_fail(__FILE__, __LINE__, "completion: %s FILE "
                               "does not complete file names", name);
                }
                if (def->short_name && !word_listed(patterns, shrt)) {
                    check_fail(__FILE__, __LINE__, "completion: %s in a "
                               "\"case $prev\" branch without %s", name,
                               shrt);
                }
            }
            free(name);
        }
        free(patterns);
        free(body);
        if (!end) {
            break;
        }
        p = end + 2;
    }

    for (size_t i = 0; i < t->n; i++) {
        const struct kd_option_def *def = &t->defs[i];
        char *name = kd_xasprintf("--%s", def->long_name);
        char shrt[3] = { '-', def->short_name, '\0' };
        size_t want = def->arg != KD_ARG_NONE;

        if (!word_listed(opts, name)
            || (def->short_name && !word_listed(opts, shrt))) {
            check_fail(__FILE__, __LINE__, "completion: %s not in opts",
                       name);
        }
        if (branches[i] != want) {
            check_fail(__FILE__, __LINE__, "completion: %s in %zu \"case "
                       "$prev\" branches, not %zu (%s)", name, branches[i],
                       want, want ? "it takes a value" : "it takes none");
        }
        free(name);
    }
    free(branches);
    free(cases);
    free(opts);
    free(text);
}

/* The fuzz dictionary of the option parser has each option by each of
 * its names, and no option that is not in the table. */
static void
test_options_fuzz_dictionary(void)
{
    const struct kd_option_table *t = kd_options_table();
    char *dict = read_source_file("tests/fuzz/dict/options.dict");

    if (!dict) {
        return;
    }
    for (const char *p = dict; *p; p += strcspn(p, "\n"), p += *p != 0) {
        size_t n = strcspn(p, "\n");
        char *w;

        /* An entry "-x" or "--name...". */
        if (n < 4 || p[0] != '"' || p[1] != '-' || p[n - 1] != '"'
            || !(p[2] == '-' ? p[3] >= 'a' && p[3] <= 'z'
                             : n == 4 && isalpha((unsigned char) p[2]))) {
            continue;
        }
        w = kd_xasprintf("%.*s", (int) (n - 2), p + 1);
        if (!option_named(w)) {
            check_fail(__FILE__, __LINE__, "tests/fuzz/dict/options.dict: "
                       "\"%s\" is no option", w);
        }
        free(w);
    }
    for (size_t i = 0; i < t->n; i++) {
        const struct kd_option_def *def = &t->defs[i];
        char *name = kd_xasprintf("\n\"--%s\"\n", def->long_name);
        char shrt[8] = { '\n', '"', '-', def->short_name, '"', '\n', '\0' };

        if (!strstr(dict, name)) {
            check_fail(__FILE__, __LINE__, "tests/fuzz/dict/options.dict "
                       "lacks \"--%s\"", def->long_name);
        }
        if (def->short_name && !strstr(dict, shrt)) {
            check_fail(__FILE__, __LINE__, "tests/fuzz/dict/options.dict "
                       "lacks \"-%c\"", def->short_name);
        }
        free(name);
    }
    free(dict);
}

static const struct test tests[] = {
    TEST(test_options_man_page),
    TEST(test_options_completion),
    TEST(test_options_fuzz_dictionary),
    TEST(test_options_fleet),
    TEST(test_options_profile_hz),
    TEST(test_options_defaults),
    TEST(test_options_long_and_short),
    TEST(test_options_optional_arguments),
    TEST(test_options_abbreviations),
    TEST(test_options_buffer_page_count),
    TEST(test_options_bad_integers),
    TEST(test_options_bad_floats),
    TEST(test_options_missing_argument),
    TEST(test_options_unrecognized),
    TEST(test_options_help),
    TEST(test_options_help_first),
    TEST(test_options_version),
    TEST(test_options_last_wins),
    TEST(test_options_short_equals),
    TEST(test_options_unrecognized_together),
    TEST(test_options_ambiguous_with_value),
    TEST(test_options_debug_invalid_int),
    TEST(test_options_minus_zero),
    TEST(test_options_float_underflow),
    TEST(test_options_negative_number_rule),
    TEST(test_options_flag_attached),
    TEST(test_next_power_of_two),
    TEST(test_options_max_threads),
    TEST(test_options_ours),
    TEST(test_options_long_poll),
    TEST(test_options_evidence),
    TEST(test_options_durations),
    TEST(test_options_suggest),
};

CHECK_SUITE(options, tests)
