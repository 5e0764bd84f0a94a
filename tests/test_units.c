/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Unit tests of the modules that never touch the kernel: options,
 * template, syscalls, report, sample, target, and the parts of layout,
 * capture and host that only build text.  No BPF syscall is made and no
 * privilege is needed.
 *
 * Every expected value is written out here, taken from the reference
 * kernel_delay.py (its argparse setup and process_results() format
 * strings), never from this program's own output.
 *
 * The framework is tests/check.h: "tests/test_units -k trigger" runs the
 * tests whose names contain "trigger". */

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "host.h"
#include "layout.h"
#include "options.h"
#include "report.h"
#include "sample.h"
#include "syscalls.h"
#include "target.h"
#include "template.h"
#include "trigger.h"
#include "events.h"
#include "symbols.h"
#include "json.h"
#include "util.h"

#include "check.h"

/* Options. */

/* The reference's usage, as Python 3.11's argparse formats it for prog
 * "kernel_delay", plus our --version. */
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
    "                    [--histogram] [--json] [--list-probes] "       \
    "[--version]\n"

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
    struct kd_options o;

    PARSE_OK(&o, "-D", "4");
    CHECK_UINT(o.debug, 4);
    PARSE_OK(&o, "--debug", "5");
    CHECK_UINT(o.debug, 5);
    PARSE_OK(&o, "-D6");
    CHECK_UINT(o.debug, 6);
    PARSE_OK(&o, "--debug=7");
    CHECK_UINT(o.debug, 7);

    PARSE_OK(&o, "-p", "42");
    CHECK_UINT(o.pid, 42);
    PARSE_OK(&o, "--pid", "43");
    CHECK_UINT(o.pid, 43);
    PARSE_OK(&o, "-p44");
    CHECK_UINT(o.pid, 44);
    PARSE_OK(&o, "--pid=45");
    CHECK_UINT(o.pid, 45);
    PARSE_OK(&o, "-p", "0");
    CHECK_UINT(o.pid, 0);
    PARSE_OK(&o, "-p", "4194304");
    CHECK_UINT(o.pid, 4194304);

    PARSE_OK(&o, "-s", "5000");
    CHECK(o.syscall_events);
    CHECK_UINT(o.syscall_events_ns, 5000);
    PARSE_OK(&o, "--syscall-events", "6000");
    CHECK(o.syscall_events);
    CHECK_UINT(o.syscall_events_ns, 6000);
    PARSE_OK(&o, "-s7000");
    CHECK(o.syscall_events);
    CHECK_UINT(o.syscall_events_ns, 7000);
    PARSE_OK(&o, "--syscall-events=8000");
    CHECK(o.syscall_events);
    CHECK_UINT(o.syscall_events_ns, 8000);

    PARSE_OK(&o, "--buffer-page-count", "16");
    CHECK_UINT(o.buffer_page_count, 16);
    PARSE_OK(&o, "--buffer-page-count=2048");
    CHECK_UINT(o.buffer_page_count, 2048);

    PARSE_OK(&o, "--sample-count", "5");
    CHECK_UINT(o.sample_count, 5);
    PARSE_OK(&o, "--sample-count=100000000");
    CHECK_UINT(o.sample_count, 100000000);

    PARSE_OK(&o, "--sample-interval", "1.5");
    CHECK_DOUBLE(o.sample_interval, 1.5);
    PARSE_OK(&o, "--sample-interval=0");
    CHECK_DOUBLE(o.sample_interval, 0);
    PARSE_OK(&o, "--sample-interval", "31536000");
    CHECK_DOUBLE(o.sample_interval, 31536000);

    PARSE_OK(&o, "--sample-time", "2");
    CHECK_DOUBLE(o.sample_time, 2);
    PARSE_OK(&o, "--sample-time=.25");
    CHECK_DOUBLE(o.sample_time, 0.25);
    PARSE_OK(&o, "--sample-time", "1e1");
    CHECK_DOUBLE(o.sample_time, 10);

    PARSE_OK(&o, "--skip-syscall-poll-events");
    CHECK(o.skip_syscall_poll_events);
    CHECK(!o.skip_upcall_stats);
    PARSE_OK(&o, "--skip-upcall-stats");
    CHECK(o.skip_upcall_stats);
    CHECK(!o.skip_syscall_poll_events);

    PARSE_OK(&o, "--stack-trace-size", "0");
    CHECK_UINT(o.stack_trace_size, 0);
    PARSE_OK(&o, "--stack-trace-size=100");
    CHECK_UINT(o.stack_trace_size, 100);

    PARSE_OK(&o, "--start-trigger", "up#probe_a", "--stop-trigger",
             "up#probe_b");
    CHECK_STR(o.start_trigger, "up#probe_a");
    CHECK_STR(o.stop_trigger, "up#probe_b");
    PARSE_OK(&o, "--start-trigger=x=y", "--stop-trigger=");
    CHECK_STR(o.start_trigger, "x=y");
    CHECK_STR(o.stop_trigger, "");

    PARSE_OK(&o, "--trigger-delta", "100");
    CHECK_UINT(o.trigger_delta, 100);
    PARSE_OK(&o, "--trigger-delta=200");
    CHECK_UINT(o.trigger_delta, 200);

    /* Everything at once; the others keep their defaults. */
    PARSE_OK(&o, "-p", "9", "--sample-count", "3", "-s", "10",
             "--skip-upcall-stats");
    CHECK_UINT(o.pid, 9);
    CHECK_UINT(o.sample_count, 3);
    CHECK(o.syscall_events);
    CHECK_UINT(o.syscall_events_ns, 10);
    CHECK(o.skip_upcall_stats);
    CHECK_UINT(o.buffer_page_count, 1024);
    CHECK_DOUBLE(o.sample_time, 0.5);
}

static void
test_options_optional_arguments(void)
{
    struct kd_options o;

    PARSE_OK(&o, "-D");
    CHECK_UINT(o.debug, 0x3f);
    PARSE_OK(&o, "--debug");
    CHECK_UINT(o.debug, 0x3f);
    PARSE_OK(&o, "-D", "4");
    CHECK_UINT(o.debug, 4);
    /* An option after it is not its argument. */
    PARSE_OK(&o, "-D", "-p", "3");
    CHECK_UINT(o.debug, 0x3f);
    CHECK_UINT(o.pid, 3);

    PARSE_OK(&o, "-s");
    CHECK(o.syscall_events);
    CHECK_UINT(o.syscall_events_ns, 0);
    PARSE_OK(&o, "--syscall-events");
    CHECK(o.syscall_events);
    CHECK_UINT(o.syscall_events_ns, 0);
    PARSE_OK(&o, "-s", "5000");
    CHECK(o.syscall_events);
    CHECK_UINT(o.syscall_events_ns, 5000);
    PARSE_OK(&o, "-s", "--sample-count", "2");
    CHECK(o.syscall_events);
    CHECK_UINT(o.syscall_events_ns, 0);
    CHECK_UINT(o.sample_count, 2);

    PARSE_OK(&o, "--trigger-delta");
    CHECK_UINT(o.trigger_delta, 0);
    PARSE_OK(&o, "--trigger-delta", "-p", "5");
    CHECK_UINT(o.trigger_delta, 0);
    CHECK_UINT(o.pid, 5);
}

static void
test_options_abbreviations(void)
{
    struct kd_options o;

    PARSE_OK(&o, "--sample-t", "2");
    CHECK_DOUBLE(o.sample_time, 2);
    CHECK_UINT(o.sample_count, 1);
    PARSE_OK(&o, "--sample-c=3");
    CHECK_UINT(o.sample_count, 3);
    PARSE_OK(&o, "--sample-i", "4");
    CHECK_DOUBLE(o.sample_interval, 4);
    PARSE_OK(&o, "--pi", "9");
    CHECK_UINT(o.pid, 9);
    PARSE_OK(&o, "--deb");
    CHECK_UINT(o.debug, 0x3f);
    PARSE_OK(&o, "--skip-s");
    CHECK(o.skip_syscall_poll_events);
    CHECK(!o.skip_upcall_stats);
    PARSE_OK(&o, "--skip-u");
    CHECK(o.skip_upcall_stats);
    PARSE_OK(&o, "--b", "5");
    CHECK_UINT(o.buffer_page_count, 8);
    PARSE_OK(&o, "--stac", "7");
    CHECK_UINT(o.stack_trace_size, 7);
    PARSE_OK(&o, "--star", "a", "--sto", "b");
    CHECK_STR(o.start_trigger, "a");
    CHECK_STR(o.stop_trigger, "b");
    PARSE_OK(&o, "--t", "6");
    CHECK_UINT(o.trigger_delta, 6);

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
    struct kd_options o;

    PARSE_OK(&o, "--buffer-page-count", "1000");
    CHECK_UINT(o.buffer_page_count, 1024);
    PARSE_OK(&o, "--buffer-page-count", "0");
    CHECK_UINT(o.buffer_page_count, 1);
    PARSE_OK(&o, "--buffer-page-count", "1024");
    CHECK_UINT(o.buffer_page_count, 1024);
    PARSE_OK(&o, "--buffer-page-count", "1025");
    CHECK_UINT(o.buffer_page_count, 2048);
    PARSE_OK(&o, "--buffer-page-count", "1");
    CHECK_UINT(o.buffer_page_count, 1);
    PARSE_OK(&o, "--buffer-page-count", "3");
    CHECK_UINT(o.buffer_page_count, 4);
    PARSE_OK(&o, "--buffer-page-count", "1048576");
    CHECK_UINT(o.buffer_page_count, 1048576);
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

/* The lines --version adds after its first: every field, then a host that
 * has no versioned libbcc.so, no BTF, no kprobes and no headers. */
static void
test_host_info_format(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    struct kd_host_info info = {
        .libbcc = "0.26.0",
        .libbcc_path = "/usr/lib/x86_64-linux-gnu/libbcc.so.0.26.0",
        .libbcc_built = "0.26.0",
        .libbpf = "1.1.2",
        .libbpf_path = "/usr/lib/x86_64-linux-gnu/libbpf.so.1.1.2",
        .libbpf_built = "1.1",
        .kernel = "6.18.0 x86_64",
        .features = {
            [KD_HOST_BTF] = { "BTF", "yes", "/sys/kernel/btf/vmlinux" },
            [KD_HOST_KPROBES] = { "kprobes", "yes", NULL },
            [KD_HOST_RINGBUF] = { "ring buffer", "unknown",
                                  "probing it needs root" },
            [KD_HOST_HEADERS] = { "kernel headers", "yes",
                                  "/lib/modules/6.18.0/build" },
        },
    };

    kd_host_info_format(&info, &ds);
    CHECK_STR(kd_ds_cstr(&ds),
              "libbcc: 0.26.0 (/usr/lib/x86_64-linux-gnu/libbcc.so.0.26.0), "
              "built with 0.26.0\n"
              "libbpf: 1.1.2 (/usr/lib/x86_64-linux-gnu/libbpf.so.1.1.2), "
              "built with 1.1\n"
              "kernel: 6.18.0 x86_64\n"
              "BTF: yes (/sys/kernel/btf/vmlinux)\n"
              "kprobes: yes\n"
              "ring buffer: unknown (probing it needs root)\n"
              "kernel headers: yes (/lib/modules/6.18.0/build)\n");
    kd_ds_destroy(&ds);

    info.libbcc = NULL;
    info.libbcc_path = NULL;
    info.libbpf_path = NULL;
    info.kernel = NULL;
    info.features[KD_HOST_BTF].state = "no";
    info.features[KD_HOST_BTF].detail = NULL;
    info.features[KD_HOST_KPROBES].state = "no";
    info.features[KD_HOST_RINGBUF].name = NULL;
    info.features[KD_HOST_HEADERS].state = "no";
    kd_host_info_format(&info, &ds);
    CHECK_STR(kd_ds_cstr(&ds),
              "libbcc: unknown, built with 0.26.0\n"
              "libbpf: 1.1.2, built with 1.1\n"
              "kernel: unknown\n"
              "BTF: no\n"
              "kprobes: no\n"
              "kernel headers: no (/lib/modules/6.18.0/build)\n");
    kd_ds_destroy(&ds);
}

static void
test_options_last_wins(void)
{
    struct kd_options o;

    PARSE_OK(&o, "-p", "5", "-p", "6");
    CHECK_UINT(o.pid, 6);
    PARSE_OK(&o, "--sample-time", "1", "--sample-time", "2.5");
    CHECK_DOUBLE(o.sample_time, 2.5);
    PARSE_OK(&o, "-s", "100", "-s");
    CHECK(o.syscall_events);
    CHECK_UINT(o.syscall_events_ns, 0);
    PARSE_OK(&o, "-D", "4", "-D");
    CHECK_UINT(o.debug, 0x3f);
    PARSE_OK(&o, "-D", "-D", "2");
    CHECK_UINT(o.debug, 2);
    PARSE_OK(&o, "--start-trigger", "a", "--start-trigger", "b");
    CHECK_STR(o.start_trigger, "b");
    PARSE_OK(&o, "--buffer-page-count", "5", "--buffer-page-count", "3");
    CHECK_UINT(o.buffer_page_count, 4);
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
    struct kd_options o;

    PARSE_OK(&o, "-p=5");
    CHECK_UINT(o.pid, 5);
    PARSE_OK(&o, "-s=100");
    CHECK_UINT(o.syscall_events_ns, 100);
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
test_parse_u64(void)
{
    uint64_t u;

    u = 99;
    CHECK_INT(kd_parse_u64("0", 0, 10, &u), 0);
    CHECK_UINT(u, 0);
    CHECK_INT(kd_parse_u64("10", 0, 10, &u), 0);
    CHECK_UINT(u, 10);
    CHECK_INT(kd_parse_u64("+7", 0, 10, &u), 0);
    CHECK_UINT(u, 7);
    CHECK_INT(kd_parse_u64("007", 0, 10, &u), 0);
    CHECK_UINT(u, 7);
    CHECK_INT(kd_parse_u64("18446744073709551615", 0, UINT64_MAX, &u), 0);
    CHECK_UINT(u, UINT64_MAX);
    CHECK_INT(kd_parse_u64("18446744073709551614", 0, UINT64_MAX, &u), 0);
    CHECK_UINT(u, UINT64_MAX - 1);

    CHECK_INT(kd_parse_u64("11", 0, 10, &u), ERANGE);
    CHECK_INT(kd_parse_u64("4", 5, 10, &u), ERANGE);
    CHECK_INT(kd_parse_u64("-5", 0, 10, &u), ERANGE);
    CHECK_INT(kd_parse_u64("18446744073709551616", 0, UINT64_MAX, &u),
              ERANGE);
    CHECK_INT(kd_parse_u64("99999999999999999999999", 0, UINT64_MAX, &u),
              ERANGE);

    CHECK_INT(kd_parse_u64("", 0, 10, &u), EINVAL);
    CHECK_INT(kd_parse_u64("+", 0, 10, &u), EINVAL);
    CHECK_INT(kd_parse_u64("-", 0, 10, &u), EINVAL);
    CHECK_INT(kd_parse_u64("++5", 0, 10, &u), EINVAL);
    CHECK_INT(kd_parse_u64("-5x", 0, 10, &u), EINVAL);
    CHECK_INT(kd_parse_u64("5x", 0, 10, &u), EINVAL);
    CHECK_INT(kd_parse_u64(" 5", 0, 10, &u), EINVAL);
    CHECK_INT(kd_parse_u64("5 ", 0, 10, &u), EINVAL);
    CHECK_INT(kd_parse_u64("0x10", 0, 100, &u), EINVAL);
    CHECK_INT(kd_parse_u64("1.0", 0, 10, &u), EINVAL);
    CHECK_INT(kd_parse_u64("99999999999999999999999x", 0, UINT64_MAX, &u),
              EINVAL);
}

static void
test_parse_seconds(void)
{
    double d;

    d = 99;
    CHECK_INT(kd_parse_seconds("0.5", 0, 10, &d), 0);
    CHECK_DOUBLE(d, 0.5);
    CHECK_INT(kd_parse_seconds("1e3", 0, 1e6, &d), 0);
    CHECK_DOUBLE(d, 1000);
    CHECK_INT(kd_parse_seconds("1E-1", 0, 10, &d), 0);
    CHECK_DOUBLE(d, 0.1);
    CHECK_INT(kd_parse_seconds(".5", 0, 10, &d), 0);
    CHECK_DOUBLE(d, 0.5);
    CHECK_INT(kd_parse_seconds("5.", 0, 10, &d), 0);
    CHECK_DOUBLE(d, 5);
    CHECK_INT(kd_parse_seconds("+2", 0, 10, &d), 0);
    CHECK_DOUBLE(d, 2);
    CHECK_INT(kd_parse_seconds("0", 0, 10, &d), 0);
    CHECK_DOUBLE(d, 0);
    CHECK_INT(kd_parse_seconds("10", 0, 10, &d), 0);
    CHECK_DOUBLE(d, 10);
    CHECK_INT(kd_parse_seconds("1e-9", 1e-9, 10, &d), 0);
    CHECK_DOUBLE(d, 1e-9);

    CHECK_INT(kd_parse_seconds("-1", 0, 10, &d), ERANGE);
    CHECK_INT(kd_parse_seconds("10.5", 0, 10, &d), ERANGE);
    CHECK_INT(kd_parse_seconds("0", 1e-9, 10, &d), ERANGE);
    CHECK_INT(kd_parse_seconds("1e999", 0, 1e9, &d), ERANGE);
    CHECK_INT(kd_parse_seconds("-1e999", 0, 1e9, &d), ERANGE);

    CHECK_INT(kd_parse_seconds("", 0, 10, &d), EINVAL);
    CHECK_INT(kd_parse_seconds(".", 0, 10, &d), EINVAL);
    CHECK_INT(kd_parse_seconds("e5", 0, 10, &d), EINVAL);
    CHECK_INT(kd_parse_seconds("1e", 0, 10, &d), EINVAL);
    CHECK_INT(kd_parse_seconds("1-2", 0, 10, &d), EINVAL);
    CHECK_INT(kd_parse_seconds("nan", 0, 10, &d), EINVAL);
    CHECK_INT(kd_parse_seconds("NAN", 0, 10, &d), EINVAL);
    CHECK_INT(kd_parse_seconds("inf", 0, 10, &d), EINVAL);
    CHECK_INT(kd_parse_seconds("infinity", 0, 10, &d), EINVAL);
    CHECK_INT(kd_parse_seconds("0x1", 0, 10, &d), EINVAL);
    CHECK_INT(kd_parse_seconds("0x1p3", 0, 10, &d), EINVAL);
    CHECK_INT(kd_parse_seconds(" 1", 0, 10, &d), EINVAL);
    CHECK_INT(kd_parse_seconds("1 ", 0, 10, &d), EINVAL);
    CHECK_INT(kd_parse_seconds("1,5", 0, 10, &d), EINVAL);
    CHECK_INT(kd_parse_seconds("abc", 0, 10, &d), EINVAL);
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

/* Template. */

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

static void
test_template_expand(void)
{
    static const struct kd_subst substs[] = {
        { "A", "1" },
        { "B_2", "two" },
        { "C", "@A@" },
        { "AB", "[ab]" },
        { "EMPTY", "" },
    };
    char *out, *error;

    CHECK_INT(kd_template_expand("x=@A@ y=@B_2@ z=@C@ @A@\nend @AB@@A@\n",
                                 substs, KD_ARRAY_SIZE(substs), &out,
                                 &error), 0);
    CHECK_STR(out, "x=1 y=two z=@A@ 1\nend [ab]1\n");
    CHECK(error == NULL);
    free(out);

    /* A value is not re-expanded, even when it forms a placeholder with
     * the text around it. */
    CHECK_INT(kd_template_expand("@C@B_2@", substs, KD_ARRAY_SIZE(substs),
                                 &out, &error), 0);
    CHECK_STR(out, "@A@B_2@");
    free(out);

    CHECK_INT(kd_template_expand("[@EMPTY@]@A@", substs,
                                 KD_ARRAY_SIZE(substs), &out, &error), 0);
    CHECK_STR(out, "[]1");
    free(out);

    CHECK_INT(kd_template_expand("", substs, KD_ARRAY_SIZE(substs), &out,
                                 &error), 0);
    CHECK_STR(out, "");
    free(out);

    /* "@@A@" is a lone '@' then a placeholder. */
    CHECK_INT(kd_template_expand("@@A@", substs, KD_ARRAY_SIZE(substs),
                                 &out, &error), 0);
    CHECK_STR(out, "@1");
    free(out);
}

static void
test_template_untouched(void)
{
    static const char text[] =
        "a @ b @@ c@d e@\n"
        "@lower@ @Mixed@ @A B@ @A\n@ user@example.com\n"
        "@\n@";
    char *out, *error;

    CHECK_INT(kd_template_expand(text, NULL, 0, &out, &error), 0);
    CHECK_STR(out, text);
    CHECK(error == NULL);
    free(out);
}

static void
test_template_errors(void)
{
    static const struct kd_subst substs[] = {
        { "A", "1" },
        { "NULLED", NULL },
    };
    char *out, *error;

    out = (char *) "unchanged";
    CHECK_INT(kd_template_expand("line 1 @A@\nline 2\nline 3 @MISSING@\n",
                                 substs, KD_ARRAY_SIZE(substs), &out,
                                 &error), EINVAL);
    CHECK(out == NULL);
    CHECK_STR(error, "template line 3: placeholder @MISSING@ has no value");
    free(error);

    CHECK_INT(kd_template_expand("@NULLED@", substs, KD_ARRAY_SIZE(substs),
                                 &out, &error), EINVAL);
    CHECK(out == NULL);
    CHECK_STR(error, "template line 1: placeholder @NULLED@ has no value");
    free(error);

    /* Newlines in values do not count as template lines. */
    {
        static const struct kd_subst multi[] = { { "M", "a\nb\nc\n" } };

        CHECK_INT(kd_template_expand("@M@\n@M@ @X@", multi, 1, &out,
                                     &error), EINVAL);
        CHECK_STR(error, "template line 2: placeholder @X@ has no value");
        free(error);
    }

    /* A name that is a prefix of a known one is not known. */
    CHECK_INT(kd_template_expand("@AA@", substs, KD_ARRAY_SIZE(substs),
                                 &out, &error), EINVAL);
    CHECK_STR(error, "template line 1: placeholder @AA@ has no value");
    free(error);
}

static void
test_layout_headers(void)
{
    struct kd_layout l;
    char *error = (char *) "unchanged";

    CHECK_INT(kd_layout_init(&l, true, &error), 0);
    CHECK(error == NULL);
    CHECK(!l.from_btf);
    CHECK_STR(l.includes, "#include <linux/sched.h>\n"
              "#include <linux/interrupt.h>\n"
              "#include <asm/ptrace.h>");
    CHECK_STR(l.task_pid, "offsetof(struct task_struct, pid)");
    CHECK_STR(l.task_tgid, "offsetof(struct task_struct, tgid)");
    CHECK(!strcmp(l.state_field, "__state") || !strcmp(l.state_field,
                                                       "state"));
    if (!strcmp(l.state_field, "__state")) {
        CHECK_STR(l.task_state, "offsetof(struct task_struct, __state)");
        CHECK_STR(l.task_state_size,
                  "sizeof(((struct task_struct *) 0)->__state)");
    } else {
        CHECK_STR(l.task_state, "offsetof(struct task_struct, state)");
        CHECK_STR(l.task_state_size,
                  "sizeof(((struct task_struct *) 0)->state)");
    }
    CHECK_STR(l.irqaction_name, "offsetof(struct irqaction, name)");
#if defined(__x86_64__)
    CHECK_STR(l.syscall_nr, "offsetof(struct pt_regs, orig_ax)");
    CHECK_STR(l.regs_rc, "offsetof(struct pt_regs, ax)");
#elif defined(__aarch64__)
    CHECK_STR(l.syscall_nr, "offsetof(struct pt_regs, syscallno)");
    CHECK_STR(l.regs_rc, "offsetof(struct pt_regs, regs[0])");
#endif
}

static void
test_capture_source_headers(void)
{
    struct kd_layout l;
    char *error, *text = NULL;

    CHECK_INT(kd_layout_init(&l, true, &error), 0);
    CHECK_INT(kd_capture_source(&kd_options_defaults, 1234, &l, NULL, false, &text,
                                &error), 0);
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
    snprintf(l.regs_rc, sizeof l.regs_rc, "80");

    CHECK_INT(kd_capture_source(&kd_options_defaults, 4321, &l, NULL, false, &text,
                                &error), 0);
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
    snprintf(l.regs_rc, sizeof l.regs_rc, "5");
    CHECK_INT(kd_capture_source(&kd_options_defaults, 1, &l, NULL, false, &text,
                                &error), 0);
    CHECK_CONTAINS(text, "\n/* @TGID@ */\n");
    CHECK_CONTAINS(text, "\n#define KD_OFF_TASK_PID     @OFF_TASK_TGID@\n");
    free(text);
}

/* Syscalls. */

static void
test_syscalls(void)
{
    char buf[64];
    size_t found = 0;
    unsigned int prev = 0;

    CHECK(kd_syscall_count() > 300);
#if defined(__x86_64__)
    CHECK_STR(kd_syscall_name(0), "read");
    CHECK_STR(kd_syscall_name(1), "write");
    CHECK_STR(kd_syscall_name(7), "poll");
    CHECK_STR(kd_syscall_name(110), "getppid");
    CHECK_STR(kd_syscall_name(202), "futex");
    CHECK_STR(kd_syscall_name(230), "clock_nanosleep");
    CHECK_STR(kd_syscall_name(435), "clone3");
    CHECK_STR(kd_syscall_name(236), "vserver");
    CHECK_STR(kd_syscall_name(262), "newfstatat");
    CHECK(kd_syscall_name(335) == NULL);
    CHECK(kd_syscall_name(423) == NULL);
    CHECK_STR(kd_syscall_format(335, buf, sizeof buf), "[unknown: 335]");
    CHECK_INT(kd_syscall_nr("poll"), 7);
    CHECK_INT(kd_syscall_nr("read"), 0);
    CHECK_INT(kd_syscall_nr("clone3"), 435);
    CHECK_STR(kd_syscall_format(7, buf, sizeof buf), "poll");
    CHECK_STR(kd_syscall_format(0, buf, sizeof buf), "read");
#endif
    CHECK(kd_syscall_name(100000) == NULL);
    CHECK(kd_syscall_name(UINT_MAX) == NULL);
    CHECK_INT(kd_syscall_nr("no_such_syscall"), -1);
    CHECK_INT(kd_syscall_nr(""), -1);
    CHECK_STR(kd_syscall_format(100000, buf, sizeof buf),
              "[unknown: 100000]");
    CHECK_STR(kd_syscall_format(4294967295u, buf, sizeof buf),
              "[unknown: 4294967295]");

    /* A binary search finds every entry only if the table is sorted, and
     * names are unique if each maps back to its own number. */
    for (unsigned int nr = 0; nr <= 1000; nr++) {
        const char *name = kd_syscall_name(nr);

        if (name) {
            found++;
            if (!CHECK_INT(kd_syscall_nr(name), nr)) {
                break;
            }
            if (found > 1) {
                CHECK(nr > prev);
            }
            prev = nr;
        }
    }
    CHECK_UINT(found, kd_syscall_count());
}

/* Report. */

static void
put_field(const char *s, int width, bool left, bool truncate,
          const char *expected, const char *file, int line)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    kd_ds_put_cstr(&ds, "[");
    kd_put_field(&ds, s, width, left, truncate);
    kd_ds_put_cstr(&ds, "]");
    check_str(kd_ds_cstr(&ds), expected, "kd_put_field()", file, line);
    kd_ds_destroy(&ds);
}

#define CHECK_FIELD(S, WIDTH, LEFT, TRUNCATE, EXPECTED) \
    put_field((S), (WIDTH), (LEFT), (TRUNCATE), (EXPECTED), __FILE__, \
              __LINE__)

static void
test_format_thousands(void)
{
    char buf[32];

    CHECK_STR(kd_format_thousands(0, buf), "0");
    CHECK_STR(kd_format_thousands(7, buf), "7");
    CHECK_STR(kd_format_thousands(999, buf), "999");
    CHECK_STR(kd_format_thousands(1000, buf), "1,000");
    CHECK_STR(kd_format_thousands(99999, buf), "99,999");
    CHECK_STR(kd_format_thousands(100000, buf), "100,000");
    CHECK_STR(kd_format_thousands(1234567, buf), "1,234,567");
    CHECK_STR(kd_format_thousands(UINT64_MAX, buf),
              "18,446,744,073,709,551,615");
}

static void
test_put_field(void)
{
    CHECK_FIELD("abc", 6, true, false, "[abc   ]");
    CHECK_FIELD("abc", 6, false, false, "[   abc]");
    CHECK_FIELD("abc", 6, true, true, "[abc   ]");
    CHECK_FIELD("abcdefgh", 4, true, true, "[abcd]");
    CHECK_FIELD("abcdefgh", 4, false, true, "[abcd]");
    CHECK_FIELD("abcdefgh", 4, true, false, "[abcdefgh]");
    CHECK_FIELD("abcd", 4, true, true, "[abcd]");
    CHECK_FIELD("", 3, false, false, "[   ]");
    CHECK_FIELD("", 0, true, true, "[]");
    CHECK_FIELD("abc", 0, true, true, "[]");

    /* Python counts code points, not bytes. */
    CHECK_FIELD("h\xc3\xa9llo", 7, true, false, "[h\xc3\xa9llo  ]");
    CHECK_FIELD("h\xc3\xa9llo", 7, false, false, "[  h\xc3\xa9llo]");
    CHECK_FIELD("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 3, false, true,
                "[\xc3\xa9\xc3\xa9\xc3\xa9]");
    /* "日本語テキスト", 3-byte characters. */
    CHECK_FIELD("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x83\x86"
                "\xe3\x82\xad\xe3\x82\xb9\xe3\x83\x88", 3, true, true,
                "[\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e]");
    /* "😀" is 4 bytes and one character. */
    CHECK_FIELD("\xf0\x9f\x98\x80" "a", 4, true, true,
                "[\xf0\x9f\x98\x80" "a  ]");
    CHECK_FIELD("ab\xf0\x9f\x98\x80" "cd", 3, true, true,
                "[ab\xf0\x9f\x98\x80]");

    /* Widths are those of the rendered form of hostile bytes. */
    CHECK_FIELD("a\x1b", 6, false, false, "[ a\\x1b]");
    CHECK_FIELD("a\x1b", 6, true, false, "[a\\x1b ]");
    CHECK_FIELD("ab\ncd", 4, true, true, "[ab\\n]");
    CHECK_FIELD("ab\ncd", 3, true, true, "[ab ]");
    CHECK_FIELD("ab\ncd", 3, false, true, "[ ab]");
}

static void
check_safe_at(const char *file, int line, const char *s, size_t len,
              size_t max_width, const char *expected, size_t width)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    kd_ds_put_cstr(&ds, "[");
    check_uint(kd_ds_put_safe(&ds, s, len, max_width), width,
               "kd_ds_put_safe()'s width", file, line);
    kd_ds_put_cstr(&ds, "]");
    check_str(kd_ds_cstr(&ds), expected, "kd_ds_put_safe()", file, line);
    kd_ds_destroy(&ds);
}

/* The literal 'S' rendered whole, and cut to 'MAX' columns. */
#define CHECK_SAFE(S, EXPECTED, WIDTH) \
    check_safe_at(__FILE__, __LINE__, (S), sizeof (S) - 1, SIZE_MAX, \
                  (EXPECTED), (WIDTH))
#define CHECK_SAFE_CUT(S, MAX, EXPECTED, WIDTH) \
    check_safe_at(__FILE__, __LINE__, (S), sizeof (S) - 1, (MAX), \
                  (EXPECTED), (WIDTH))

/* kd_ds_put_safe(): what a thread, a USDT probe or a symbol may be named
 * is shown without letting it reach the terminal as it is. */
static void
test_put_safe(void)
{
    char *s;

    CHECK_SAFE("", "[]", 0);
    CHECK_SAFE("handler1", "[handler1]", 8);
    CHECK_SAFE(" !~", "[ !~]", 3);

    /* Colour, then a window title set with OSC ... BEL. */
    CHECK_SAFE("\x1b[31mRED\x1b]0;x\a", "[\\x1b[31mRED\\x1b]0;x\\x07]", 23);
    /* Newline and tab in C notation, and so a backslash. */
    CHECK_SAFE("a\nb\tc", "[a\\nb\\tc]", 7);
    CHECK_SAFE("back\\slash", "[back\\\\slash]", 11);
    CHECK_SAFE("\\x1b", "[\\\\x1b]", 5);
    /* The other control characters, DEL, and a NUL within 'len'. */
    CHECK_SAFE("\x01\r\x1f", "[\\x01\\x0d\\x1f]", 12);
    CHECK_SAFE("del\x7f", "[del\\x7f]", 7);
    CHECK_SAFE("a\0b", "[a\\x00b]", 6);

    /* C1 controls in UTF-8 (U+0080 to U+009F), both bytes escaped: NEL,
     * CSI, the first and the last; U+00A0 is not one. */
    CHECK_SAFE("a\xc2\x85" "b", "[a\\xc2\\x85b]", 10);
    CHECK_SAFE("\xc2\x9b" "2J", "[\\xc2\\x9b2J]", 10);
    CHECK_SAFE("\xc2\x80\xc2\x9f", "[\\xc2\\x80\\xc2\\x9f]", 16);
    CHECK_SAFE("\xc2\xa0", "[\xc2\xa0]", 1);
    /* A lone C1 byte (8-bit CSI) is not UTF-8 anyway. */
    CHECK_SAFE("\x9b" "31m", "[\\x9b31m]", 7);

    /* Not UTF-8: overlong '/', a surrogate, a truncated sequence, above
     * U+10FFFF, a byte that never starts one, stray continuation. */
    CHECK_SAFE("\xc0\xaf", "[\\xc0\\xaf]", 8);
    CHECK_SAFE("\xed\xa0\x80", "[\\xed\\xa0\\x80]", 12);
    CHECK_SAFE("\xe6\x97" "a", "[\\xe6\\x97a]", 9);
    CHECK_SAFE("\xf4\x90\x80\x80", "[\\xf4\\x90\\x80\\x80]", 16);
    CHECK_SAFE("\xf5\x80", "[\\xf5\\x80]", 8);
    CHECK_SAFE("\xff\xfe", "[\\xff\\xfe]", 8);
    CHECK_SAFE("a\x80" "b", "[a\\x80b]", 6);
    /* A sequence cut by 'len' is truncated too. */
    check_safe_at(__FILE__, __LINE__, "\xc3\xa9", 1, SIZE_MAX, "[\\xc3]",
                  4);

    /* Valid UTF-8 as it is, one column a character: "é", "日本", "😀",
     * U+10FFFF, U+FFFD. */
    CHECK_SAFE("h\xc3\xa9llo", "[h\xc3\xa9llo]", 5);
    CHECK_SAFE("\xe6\x97\xa5\xe6\x9c\xac", "[\xe6\x97\xa5\xe6\x9c\xac]", 2);
    CHECK_SAFE("\xf0\x9f\x98\x80", "[\xf0\x9f\x98\x80]", 1);
    CHECK_SAFE("\xf4\x8f\xbf\xbf", "[\xf4\x8f\xbf\xbf]", 1);
    CHECK_SAFE("\xef\xbf\xbd", "[\xef\xbf\xbd]", 1);

    /* Cut to a width: never within an escape or a character. */
    CHECK_SAFE_CUT("abc\x1b" "def", 5, "[abc]", 3);
    CHECK_SAFE_CUT("abc\x1b" "def", 7, "[abc\\x1b]", 7);
    CHECK_SAFE_CUT("abc\x1b" "def", 8, "[abc\\x1bd]", 8);
    CHECK_SAFE_CUT("a\\b", 2, "[a]", 1);
    CHECK_SAFE_CUT("ab", 0, "[]", 0);
    CHECK_SAFE_CUT("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", 2,
                   "[\xe6\x97\xa5\xe6\x9c\xac]", 2);

    s = kd_xstrdup_safe("x\ny\x1b");
    CHECK_STR(s, "x\\ny\\x1b");
    free(s);
}

static void
restore_tz(char *saved)
{
    if (saved) {
        setenv("TZ", saved, 1);
        free(saved);
    } else {
        unsetenv("TZ");
    }
    tzset();
}

static void
check_timestamp_at(const char *file, int line, const char *msg,
                   time_t sec, long nsec, const char *expected)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    struct timespec ts = { .tv_sec = sec, .tv_nsec = nsec };

    kd_report_timestamp(&ds, msg, &ts);
    check_str(kd_ds_cstr(&ds), expected, "kd_report_timestamp()", file,
              line);
    kd_ds_destroy(&ds);
}

#define CHECK_TIMESTAMP(MSG, SEC, NSEC, EXPECTED) \
    check_timestamp_at(__FILE__, __LINE__, (MSG), (SEC), (NSEC), (EXPECTED))

static void
timestamp_cases(void)
{
    /* 2023-06-08 10:17:22 UTC, summer time (UTC+2). */
    CHECK_TIMESTAMP("# Start sampling", 1686219442, 725127000,
                    "# Start sampling @2023-06-08T12:17:22.725127 "
                    "(10:17:22 UTC)\n");
    /* Nanoseconds beyond the microsecond are dropped. */
    CHECK_TIMESTAMP("# Start sampling", 1686219442, 725127999,
                    "# Start sampling @2023-06-08T12:17:22.725127 "
                    "(10:17:22 UTC)\n");
    CHECK_TIMESTAMP("# Sample dump", 1686219442, 1000,
                    "# Sample dump @2023-06-08T12:17:22.000001 "
                    "(10:17:22 UTC)\n");
    /* isoformat() leaves out a zero fraction. */
    CHECK_TIMESTAMP("# Sample dump", 1686219442, 0,
                    "# Sample dump @2023-06-08T12:17:22 (10:17:22 UTC)\n");
    CHECK_TIMESTAMP("# Sample dump", 1686219442, 999,
                    "# Sample dump @2023-06-08T12:17:22 (10:17:22 UTC)\n");
    /* 2023-01-15 07:00:00 UTC, winter time (UTC+1). */
    CHECK_TIMESTAMP("# Stop sampling", 1673766000, 500000000,
                    "# Stop sampling @2023-01-15T08:00:00.500000 "
                    "(07:00:00 UTC)\n");
    /* The same local time twice, on 2023-10-29. */
    CHECK_TIMESTAMP("#", 1698539400, 0,
                    "# @2023-10-29T02:30:00 (00:30:00 UTC)\n");
    CHECK_TIMESTAMP("#", 1698543000, 0,
                    "# @2023-10-29T02:30:00 (01:30:00 UTC)\n");
    /* Local date differs from the UTC date. */
    CHECK_TIMESTAMP("x", 1686265200, 250000,
                    "x @2023-06-09T01:00:00.000250 (23:00:00 UTC)\n");
}

static void
test_report_timestamp(void)
{
    const char *tz = getenv("TZ");
    char *saved = tz ? kd_xstrdup(tz) : NULL;

    /* Europe/Amsterdam's rule, written out so that no tzdata is needed. */
    setenv("TZ", "CET-1CEST,M3.5.0,M10.5.0/3", 1);
    tzset();
    timestamp_cases();

    /* The same through the time zone database, where it is installed. */
    if (!access("/usr/share/zoneinfo/Europe/Amsterdam", R_OK)) {
        setenv("TZ", "Europe/Amsterdam", 1);
        tzset();
        timestamp_cases();
    }

    setenv("TZ", "UTC0", 1);
    tzset();
    CHECK_TIMESTAMP("# Sample dump", 0, 0,
                    "# Sample dump @1970-01-01T00:00:00 (00:00:00 UTC)\n");
    restore_tz(saved);
}

/* Sample data helpers. */

static struct kd_stat
stat4(uint64_t count, uint64_t total, uint64_t max, uint64_t min)
{
    struct kd_stat s = {
        .count = count, .total_ns = total, .max_ns = max, .min_ns = min,
    };
    return s;
}

static size_t
min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

static void *
xmemdup(const void *p, size_t n)
{
    return memcpy(kd_xmalloc(n), p, n);
}

struct fake_name {
    uint32_t tid;
    const char *name;
};

struct fake_names {
    const struct fake_name *names;
    size_t n;
    uint32_t last_pid;
    int calls;
};

static char *
fake_thread_name(uint32_t pid, uint32_t tid, void *aux_)
{
    struct fake_names *aux = aux_;

    aux->last_pid = pid;
    aux->calls++;
    for (size_t i = 0; i < aux->n; i++) {
        if (aux->names[i].tid == tid) {
            return kd_xstrdup(aux->names[i].name);
        }
    }
    return NULL;
}

static struct kd_syscall_entry
sc(uint32_t tid, uint32_t nr, uint64_t count, uint64_t total, uint64_t max)
{
    struct kd_syscall_entry e = {
        .key = { .tid = tid, .nr = nr },
        .stat = stat4(count, total, max, 0),
    };
    return e;
}

static struct kd_hardirq_entry
hi(uint32_t tid, const char *name, uint64_t count, uint64_t total,
   uint64_t max)
{
    struct kd_hardirq_entry e;

    memset(&e, 0, sizeof e);
    e.key.tid = tid;
    memcpy(e.key.name, name, min_size(strlen(name), sizeof e.key.name));
    e.stat = stat4(count, total, max, 0);
    return e;
}

static struct kd_softirq_entry
si(uint32_t tid, uint32_t vec, uint64_t count, uint64_t total, uint64_t max)
{
    struct kd_softirq_entry e = {
        .key = { .tid = tid, .vec = vec },
        .stat = stat4(count, total, max, 0),
    };
    return e;
}

static struct kd_name_entry
nm(uint32_t tid, const char *comm)
{
    struct kd_name_entry e;

    memset(&e, 0, sizeof e);
    e.tid = tid;
    memcpy(e.name.comm, comm, min_size(strlen(comm), sizeof e.name.comm));
    return e;
}

/* Report of a whole sample. */

/* The indentation of everything under a thread's first line. */
#define IND "                            "

#if defined(__x86_64__)

/* Written from the reference's process_results() format strings. */
static const char expected_report[] =
    "TID        THREAD           <RESOURCE SPECIFIC>\n"
    "---------- ---------------- "
        "--------------------------------------"
        "--------------------------------------\n"
    /* Named from its exit record; no syscalls, yet the header lines. */
    "      1002 dpdk-worker      [SYSCALL STATISTICS]\n"
    IND "NAME                 NUMBER       COUNT"
        "          TOTAL ns            MAX ns\n"
    "\n"
    IND "[THREAD RUN STATISTICS]\n"
    IND "SCHED_CNT           TOTAL ns            MIN ns"
        "            MAX ns\n"
    IND "         5       123,456,789             1,000"
        "        99,999,999\n"
    "\n"
    IND "[SOFT IRQ STATISTICS]\n"
    IND "NAME                 VECT_NR       COUNT"
        "          TOTAL ns            MAX ns\n"
    IND "net_rx                     3           7"
        "             7,000             2,000\n"
    IND "TOTAL:                                 7"
        "             7,000\n"
    "\n"
    "      1001 handler1         [SYSCALL STATISTICS]\n"
    IND "NAME                 NUMBER       COUNT"
        "          TOTAL ns            MAX ns\n"
    IND "poll                      7           3"
        "         3,000,000         2,000,000\n"
    IND "futex                   202           2"
        "         1,234,567         1,000,000\n"
    IND "read                      0          10"
        "             5,000               900\n"
    IND "[unknown: 999]          999           1"
        "                20                20\n"
    IND "sched_get_priority_m    146           1"
        "                10                10\n"
    IND "TOTAL( - poll):                      14"
        "         1,239,597\n"
    "\n"
    IND "[LONG POLL STATISTICS]\n"
    IND "COUNT             AVERAGE ns            MIN ns"
        "            MAX ns\n"
    IND "         3               333               100"
        "               600\n"
    "\n"
    IND "[THREAD RUN STATISTICS]\n"
    IND "SCHED_CNT           TOTAL ns            MIN ns"
        "            MAX ns\n"
    IND "         4             8,000             1,000"
        "             4,000\n"
    "\n"
    IND "[THREAD READY STATISTICS]\n"
    IND "SCHED_CNT           TOTAL ns            MAX ns\n"
    IND "         6            60,000            30,000\n"
    "\n"
    IND "[THREAD STOPPED STATISTICS]\n"
    IND "STOP_CNT            TOTAL ns            MAX ns\n"
    IND "         2             3,000             2,000\n"
    "\n"
    IND "[HARD IRQ STATISTICS]\n"
    IND "NAME                       COUNT          TOTAL ns"
        "            MAX ns\n"
    IND "nvme0q1                        1             9,000"
        "             9,000\n"
    IND "eth0-TxRx-0                    4             8,000"
        "             3,000\n"
    IND "averyveryverylongirq           2               500"
        "               400\n"
    IND "TOTAL:                         7            17,500\n"
    "\n"
    IND "[SOFT IRQ STATISTICS]\n"
    IND "NAME                 VECT_NR       COUNT"
        "          TOTAL ns            MAX ns\n"
    IND "timer                      1           2"
        "            50,000            40,000\n"
    IND "net_rx                     3           7"
        "             7,000             2,000\n"
    IND "<unknown:12>              12           1"
        "               100               100\n"
    IND "TOTAL:                                10"
        "            57,100\n"
    "\n"
    /* "wörker": padded to 16 characters, not bytes; only poll, so no
     * TOTAL line. */
    "      1003 w\xc3\xb6" "rker           [SYSCALL STATISTICS]\n"
    IND "NAME                 NUMBER       COUNT"
        "          TOTAL ns            MAX ns\n"
    IND "poll                      7           5"
        "               500               300\n";

static void
test_report_sample(void)
{
    static const struct fake_name names[] = {
        { 1001, "handler1" },
        { 1003, "w\xc3\xb6rker" },
    };
    struct fake_names aux = { names, KD_ARRAY_SIZE(names), 0, 0 };
    struct kd_sample s;
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    const struct kd_syscall_entry syscalls[] = {
        sc(1001, 146, 1, 10, 10),
        sc(1003, 7, 5, 500, 300),
        sc(1001, 0, 10, 5000, 900),
        sc(1001, 202, 2, 1234567, 1000000),
        sc(1001, 999, 1, 20, 20),
        sc(1001, 7, 3, 3000000, 2000000),
    };
    struct kd_tstats_entry tstats[3];
    const struct kd_hardirq_entry hardirqs[] = {
        hi(1001, "eth0-TxRx-0", 4, 8000, 3000),
        hi(1001, "averyveryverylongirqname_abcdefg", 2, 500, 400),
        hi(1001, "nvme0q1", 1, 9000, 9000),
    };
    const struct kd_softirq_entry softirqs[] = {
        si(1001, 12, 1, 100, 100),
        si(1002, 3, 7, 7000, 2000),
        si(1001, 3, 7, 7000, 2000),
        si(1001, 1, 2, 50000, 40000),
    };
    const struct kd_name_entry exited[] = {
        nm(1002, "dpdk-worker"),
        nm(1004, "idle"),
    };

    memset(tstats, 0, sizeof tstats);
    tstats[0].tid = 1002;
    tstats[0].stats.run = stat4(5, 123456789, 99999999, 1000);
    tstats[1].tid = 1001;
    tstats[1].stats.poll = stat4(3, 1000, 600, 100);
    tstats[1].stats.run = stat4(4, 8000, 4000, 1000);
    tstats[1].stats.ready = stat4(6, 60000, 30000, 5);
    tstats[1].stats.stop = stat4(2, 3000, 2000, 1000);
    /* A thread whose statistics are all empty is not reported. */
    tstats[2].tid = 1004;

    memset(&s, 0, sizeof s);
    s.pid = 1000;
    s.syscalls = xmemdup(syscalls, sizeof syscalls);
    s.n_syscalls = KD_ARRAY_SIZE(syscalls);
    s.tstats = xmemdup(tstats, sizeof tstats);
    s.n_tstats = KD_ARRAY_SIZE(tstats);
    s.hardirqs = xmemdup(hardirqs, sizeof hardirqs);
    s.n_hardirqs = KD_ARRAY_SIZE(hardirqs);
    s.softirqs = xmemdup(softirqs, sizeof softirqs);
    s.n_softirqs = KD_ARRAY_SIZE(softirqs);
    s.names = xmemdup(exited, sizeof exited);
    s.n_names = KD_ARRAY_SIZE(exited);

    kd_sample_group(&s, fake_thread_name, &aux);
    CHECK_UINT(s.n_threads, 3);
    kd_report_sample(&ds, &s);
    CHECK_STR(kd_ds_cstr(&ds), expected_report);

    kd_ds_destroy(&ds);
    kd_sample_clear(&s);
    CHECK_UINT(s.pid, 1000);
    CHECK_UINT(s.n_threads, 0);
    CHECK(s.threads == NULL);
}
#endif /* __x86_64__ */

static void
test_report_empty_sample(void)
{
    struct kd_sample s;
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    memset(&s, 0, sizeof s);
    s.pid = 5;
    kd_sample_group(&s, NULL, NULL);
    CHECK_UINT(s.n_threads, 0);
    kd_report_sample(&ds, &s);
    CHECK_STR(kd_ds_cstr(&ds),
              "TID        THREAD           <RESOURCE SPECIFIC>\n"
              "---------- ---------------- "
              "--------------------------------------"
              "--------------------------------------\n");
    kd_ds_destroy(&ds);
    kd_sample_clear(&s);
}

/* Names chosen by the target are rendered safely, and the columns after
 * them are padded on the rendered form: the report, the summary, the
 * syscall events and their frames. */
static void
test_report_hostile_names(void)
{
    /* A window title set with OSC ... BEL, then a clear screen; a
     * newline, a tab and a backslash. */
    static const char evil[] = "\x1b]0;x\a\x1b[2Jab";
    static const char split[] = "a\nb\tc\\";
    static const struct fake_name names[] = {
        { 2001, evil },
        { 2002, split },
    };
    struct fake_names aux = { names, KD_ARRAY_SIZE(names), 0, 0 };
    struct kd_tstats_entry tstats[2];
    struct kd_summary_row rows[2] = {
        { .tid = 2002, .name = split, .ready_ns = 250000000,
          .max_ready_ns = 120000000 },
        { .tid = 2001, .name = evil, .run_ns = 100000000 },
    };
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    struct kd_sample s;

    memset(tstats, 0, sizeof tstats);
    tstats[0].tid = 2001;
    tstats[0].stats.run = stat4(1, 1000, 1000, 1000);
    tstats[1].tid = 2002;
    tstats[1].stats.run = stat4(2, 3000, 2000, 1000);
    memset(&s, 0, sizeof s);
    s.pid = 2000;
    s.tstats = xmemdup(tstats, sizeof tstats);
    s.n_tstats = KD_ARRAY_SIZE(tstats);
    kd_sample_group(&s, fake_thread_name, &aux);
    kd_report_sample(&ds, &s);
    CHECK_STR(kd_ds_cstr(&ds),
        "TID        THREAD           <RESOURCE SPECIFIC>\n"
        "---------- ---------------- "
            "--------------------------------------"
            "--------------------------------------\n"
        /* 21 columns: longer than the field, as a long name would be. */
        "      2001 \\x1b]0;x\\x07\\x1b[2Jab [SYSCALL STATISTICS]\n"
        IND "NAME                 NUMBER       COUNT"
            "          TOTAL ns            MAX ns\n"
        "\n"
        IND "[THREAD RUN STATISTICS]\n"
        IND "SCHED_CNT           TOTAL ns            MIN ns"
            "            MAX ns\n"
        IND "         1             1,000             1,000"
            "             1,000\n"
        "\n"
        /* 9 columns, padded with 7 spaces to 16. */
        "      2002 a\\nb\\tc\\\\        [SYSCALL STATISTICS]\n"
        IND "NAME                 NUMBER       COUNT"
            "          TOTAL ns            MAX ns\n"
        "\n"
        IND "[THREAD RUN STATISTICS]\n"
        IND "SCHED_CNT           TOTAL ns            MIN ns"
            "            MAX ns\n"
        IND "         2             3,000             1,000"
            "             2,000\n");
    kd_ds_destroy(&ds);
    kd_sample_clear(&s);

    kd_report_summary(&ds, rows, 2, 500000000);
    CHECK_STR(kd_ds_cstr(&ds),
        "\n# SUMMARY: share of the 500.0 ms sample window spent\n"
        "TID        THREAD            ON CPU  RUN QUEUE  STOPPED  HARD IRQ"
        "  SOFT IRQ  SYSCALLS   LONGEST WAIT ns\n"
        "      2002 a\\nb\\tc\\\\           0.0%      50.0%     0.0%      0.0%"
        "      0.0%      0.0%       120,000,000\n"
        "      2001 \\x1b]0;x\\x07\\x1b[2Jab   20.0%       0.0%     0.0%"
        "      0.0%      0.0%      0.0%                 0\n"
        "# Longest in the run queue: a\\nb\\tc\\\\ (TID 2002), 250,000,000 ns "
        "in all (50.0% of the window), 120,000,000 ns at most.\n");
    kd_ds_destroy(&ds);

    kd_report_event(&ds, 1000, 2000, 2002, split, 100000);
    kd_report_frame(&ds, "evil\x1b[8m+0x10 [lib\n.so\xc2\x9b]");
    CHECK_STR(kd_ds_cstr(&ds),
        "                 1000                2000       2002 a\\nb\\tc\\\\"
        "                 1  [unknown: 100000]\n"
        "          evil\\x1b[8m+0x10 [lib\\n.so\\xc2\\x9b]\n");
    kd_ds_destroy(&ds);
}

/* Sample grouping. */

static void
test_sample_group(void)
{
    static const struct fake_name names[] = {
        { 3, "same" },
        { 5, "same" },
    };
    struct fake_names aux = { names, KD_ARRAY_SIZE(names), 0, 0 };
    struct kd_sample s;
    const struct kd_thread *t;

    const struct kd_syscall_entry syscalls[] = {
        sc(5, 1, 1, 100, 100),
        sc(9, 0, 1, 10, 10),
        sc(3, 2, 1, 300, 300),
        sc(5, 0, 1, 500, 500),
        sc(3, 4, 1, 300, 300),      /* Same total as nr 2: by nr. */
        sc(3, 3, 1, 900, 900),
        sc(9, 1, 1, 20, 20),
    };
    struct kd_tstats_entry tstats[4];
    const struct kd_hardirq_entry hardirqs[] = {
        hi(9, "b", 1, 1, 1),
        hi(9, "a", 1, 2, 2),
    };
    const struct kd_softirq_entry softirqs[] = {
        si(14, 9, 1, 5, 5),
        si(5, 1, 1, 7, 7),
    };
    /* The 16-character name has no terminating NUL. */
    const struct kd_name_entry exited[] = {
        nm(14, "abcdefghijklmnop"),
        nm(9, "gone-thread"),
        nm(3, "never-used"),
    };

    memset(tstats, 0, sizeof tstats);
    tstats[0].tid = 12;
    tstats[0].stats.run = stat4(1, 1, 1, 1);
    tstats[1].tid = 3;
    tstats[1].stats.poll = stat4(2, 4, 3, 1);
    tstats[1].stats.stop = stat4(1, 6, 6, 6);
    tstats[2].tid = 20;         /* All empty: no thread. */
    tstats[3].tid = 5;
    tstats[3].stats.ready = stat4(1, 2, 2, 2);

    memset(&s, 0, sizeof s);
    s.pid = 77;
    s.syscalls = xmemdup(syscalls, sizeof syscalls);
    s.n_syscalls = KD_ARRAY_SIZE(syscalls);
    s.tstats = xmemdup(tstats, sizeof tstats);
    s.n_tstats = KD_ARRAY_SIZE(tstats);
    s.hardirqs = xmemdup(hardirqs, sizeof hardirqs);
    s.n_hardirqs = KD_ARRAY_SIZE(hardirqs);
    s.softirqs = xmemdup(softirqs, sizeof softirqs);
    s.n_softirqs = KD_ARRAY_SIZE(softirqs);
    s.names = xmemdup(exited, sizeof exited);
    s.n_names = KD_ARRAY_SIZE(exited);

    kd_sample_group(&s, fake_thread_name, &aux);
    CHECK_UINT(aux.last_pid, 77);
    if (!CHECK_UINT(s.n_threads, 5)) {
        kd_sample_clear(&s);
        return;
    }

    /* By name ('<' < 'a' < 'g' < 's'), then by tid. */
    t = &s.threads[0];
    CHECK_UINT(t->tid, 12);
    CHECK_STR(t->name, "<unknown:77/12>");
    CHECK_UINT(t->n_syscalls, 0);
    CHECK(t->syscalls == NULL);
    CHECK(t->run != NULL && t->run->total_ns == 1);
    CHECK(t->poll == NULL);
    CHECK(t->ready == NULL);
    CHECK(t->stop == NULL);
    CHECK_UINT(t->n_hardirqs, 0);
    CHECK_UINT(t->n_softirqs, 0);

    t = &s.threads[1];
    CHECK_UINT(t->tid, 14);
    CHECK_STR(t->name, "abcdefghijklmnop");
    CHECK_UINT(t->n_syscalls, 0);
    CHECK(t->poll == NULL && t->run == NULL && t->ready == NULL
          && t->stop == NULL);
    if (CHECK_UINT(t->n_softirqs, 1)) {
        CHECK_UINT(t->softirqs[0].key.tid, 14);
        CHECK_UINT(t->softirqs[0].key.vec, 9);
    }

    t = &s.threads[2];
    CHECK_UINT(t->tid, 9);
    CHECK_STR(t->name, "gone-thread");
    if (CHECK_UINT(t->n_syscalls, 2)) {
        CHECK_UINT(t->syscalls[0].key.nr, 1);
        CHECK_UINT(t->syscalls[1].key.nr, 0);
        CHECK_UINT(t->syscalls[0].key.tid, 9);
        CHECK_UINT(t->syscalls[1].key.tid, 9);
    }
    if (CHECK_UINT(t->n_hardirqs, 2)) {
        CHECK_UINT(t->hardirqs[0].stat.total_ns, 2);
        CHECK_UINT(t->hardirqs[1].stat.total_ns, 1);
        CHECK_UINT(t->hardirqs[0].key.tid, 9);
    }
    CHECK(t->poll == NULL && t->run == NULL);

    t = &s.threads[3];
    CHECK_UINT(t->tid, 3);
    CHECK_STR(t->name, "same");
    if (CHECK_UINT(t->n_syscalls, 3)) {
        CHECK_UINT(t->syscalls[0].key.nr, 3);
        CHECK_UINT(t->syscalls[1].key.nr, 2);
        CHECK_UINT(t->syscalls[2].key.nr, 4);
    }
    CHECK(t->poll != NULL && t->poll->count == 2);
    CHECK(t->stop != NULL && t->stop->total_ns == 6);
    CHECK(t->run == NULL);
    CHECK(t->ready == NULL);
    CHECK_UINT(t->n_softirqs, 0);

    t = &s.threads[4];
    CHECK_UINT(t->tid, 5);
    CHECK_STR(t->name, "same");
    if (CHECK_UINT(t->n_syscalls, 2)) {
        CHECK_UINT(t->syscalls[0].key.nr, 0);
        CHECK_UINT(t->syscalls[1].key.nr, 1);
        CHECK_UINT(t->syscalls[0].key.tid, 5);
    }
    CHECK(t->ready != NULL && t->ready->total_ns == 2);
    if (CHECK_UINT(t->n_softirqs, 1)) {
        CHECK_UINT(t->softirqs[0].key.vec, 1);
    }

    kd_sample_clear(&s);
}

/* Without a name function, every thread falls back to its exit record or
 * to "<unknown:PID/TID>"; identical names go by tid. */
static void
test_sample_group_no_name_fn(void)
{
    struct kd_sample s;

    const struct kd_syscall_entry syscalls[] = {
        sc(40, 0, 1, 1, 1),
        sc(31, 0, 1, 1, 1),
        sc(30, 0, 1, 1, 1),
        sc(2, 0, 1, 1, 1),
    };
    const struct kd_name_entry exited[] = {
        nm(31, "worker"),
        nm(30, "worker"),
        nm(40, ""),         /* Empty: as good as none. */
    };

    memset(&s, 0, sizeof s);
    s.pid = 8;
    s.syscalls = xmemdup(syscalls, sizeof syscalls);
    s.n_syscalls = KD_ARRAY_SIZE(syscalls);
    s.names = xmemdup(exited, sizeof exited);
    s.n_names = KD_ARRAY_SIZE(exited);

    kd_sample_group(&s, NULL, NULL);
    if (CHECK_UINT(s.n_threads, 4)) {
        CHECK_UINT(s.threads[0].tid, 2);
        CHECK_STR(s.threads[0].name, "<unknown:8/2>");
        CHECK_UINT(s.threads[1].tid, 40);
        CHECK_STR(s.threads[1].name, "<unknown:8/40>");
        CHECK_UINT(s.threads[2].tid, 30);
        CHECK_STR(s.threads[2].name, "worker");
        CHECK_UINT(s.threads[3].tid, 31);
        CHECK_STR(s.threads[3].name, "worker");
    }
    kd_sample_clear(&s);
}

/* Target, against a fake /proc. */

static int
remove_entry(const char *path, const struct stat *st, int flag,
             struct FTW *ftw)
{
    (void) st;
    (void) flag;
    (void) ftw;
    remove(path);
    return 0;
}

static void
remove_tree(const char *root)
{
    nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Writes 'len' bytes of 'data' to ROOT/REL, creating the directories. */
static void
write_file(const char *root, const char *rel, const char *data, size_t len)
{
    char *path = kd_xasprintf("%s/%s", root, rel);
    FILE *f;

    for (char *p = strchr(path + strlen(root) + 1, '/'); p;
         p = strchr(p + 1, '/')) {
        *p = '\0';
        mkdir(path, 0755);
        *p = '/';
    }
    f = fopen(path, "w");
    if (!f) {
        perror(path);
        abort();
    }
    fwrite(data, 1, len, f);
    fclose(f);
    free(path);
}

#define WRITE_STR(ROOT, REL, S) write_file((ROOT), (REL), (S), strlen(S))
#define WRITE_LIT(ROOT, REL, S) write_file((ROOT), (REL), (S), sizeof (S) - 1)

static char *
make_proc_root(void)
{
    char *root = kd_xstrdup("/tmp/kd-test-proc-XXXXXX");

    if (!mkdtemp(root)) {
        perror("mkdtemp");
        abort();
    }
    return root;
}

/* A process PID named COMM with command line CMDLINE (NUL-separated). */
static void
add_process(const char *root, unsigned int pid, const char *comm,
            const char *cmdline, size_t cmdline_len)
{
    char rel[64], *s;

    snprintf(rel, sizeof rel, "%u/comm", pid);
    s = kd_xasprintf("%s\n", comm);
    WRITE_STR(root, rel, s);
    free(s);

    snprintf(rel, sizeof rel, "%u/cmdline", pid);
    write_file(root, rel, cmdline, cmdline_len);

    snprintf(rel, sizeof rel, "%u/status", pid);
    s = kd_xasprintf("Name:\t%s\nUmask:\t0022\nState:\tS (sleeping)\n"
                     "Tgid:\t%u\nNgid:\t0\nPid:\t%u\nPPid:\t1\n"
                     "TracerPid:\t0\n", comm, pid, pid);
    WRITE_STR(root, rel, s);
    free(s);
}

static void
test_target_find_vswitchd(void)
{
    char *root = make_proc_root();
    unsigned int pid = 12345;

    /* Nothing at all. */
    CHECK_INT(kd_target_find_vswitchd(root, &pid), ENOENT);
    CHECK_UINT(pid, 0);

    /* Entries that are no processes are skipped. */
    WRITE_LIT(root, "self/comm", "ovs-vswitchd\n");
    WRITE_LIT(root, "sys/comm", "ovs-vswitchd\n");
    WRITE_LIT(root, "cpuinfo", "ovs-vswitchd\n");
    add_process(root, 1, "systemd", "/sbin/init\0", 11);
    add_process(root, 50, "ovsdb-server", "ovsdb-server\0", 13);
    CHECK_INT(kd_target_find_vswitchd(root, &pid), ENOENT);
    CHECK_UINT(pid, 0);

    /* 14 characters: comm is complete, so the command line is not read. */
    add_process(root, 60, "abcd-ovs-vswit",
                "/usr/sbin/abcd-ovs-vswitchd\0", 28);
    /* 15 characters, but the command line does not start with it. */
    add_process(root, 61, "xyzab-ovs-vswit", "/usr/bin/other\0", 15);
    CHECK_INT(kd_target_find_vswitchd(root, &pid), ENOENT);

    add_process(root, 200, "ovs-vswitchd",
                "ovs-vswitchd\0unix:/var/run/db.sock\0", 35);
    CHECK_INT(kd_target_find_vswitchd(root, &pid), 0);
    CHECK_UINT(pid, 200);

    add_process(root, 300, "ovs-vswitchd", "ovs-vswitchd\0", 13);
    CHECK_INT(kd_target_find_vswitchd(root, &pid), EEXIST);
    CHECK_UINT(pid, 0);

    remove_tree(root);
    free(root);
}

/* kd_read_file_line(): the first line, without its newline, of at most
 * 4,095 bytes, however read(2) splits the file; kd_read_file_text(): all
 * of it but one final newline. */
static void
test_read_file_line(void)
{
    char *root = make_proc_root();
    char big[5000], *path, *line, *text;

    memset(big, 'x', sizeof big);
    WRITE_LIT(root, "two", "first\nsecond\n");
    WRITE_LIT(root, "bare", "no newline");
    WRITE_LIT(root, "empty", "");
    write_file(root, "big", big, sizeof big);

    static const struct {
        const char *file;
        const char *line;
        const char *text;
    } cases[] = {
        { "two", "first", "first\nsecond" },
        { "bare", "no newline", "no newline" },
        { "empty", "", "" },
    };
    for (size_t i = 0; i < KD_ARRAY_SIZE(cases); i++) {
        path = kd_xasprintf("%s/%s", root, cases[i].file);
        CHECK_INT(kd_read_file_line(path, &line), 0);
        CHECK_STR(line, cases[i].line);
        CHECK_INT(kd_read_file_text(path, &text), 0);
        CHECK_STR(text, cases[i].text);
        free(line);
        free(text);
        free(path);
    }

    path = kd_xasprintf("%s/big", root);
    CHECK_INT(kd_read_file_line(path, &line), 0);
    CHECK_UINT(strlen(line), 4095);
    CHECK_INT(kd_read_file_text(path, &text), 0);
    CHECK_UINT(strlen(text), 4095);
    free(line);
    free(text);
    free(path);

    path = kd_xasprintf("%s/missing", root);
    CHECK_INT(kd_read_file_line(path, &line), ENOENT);
    CHECK(line == NULL);
    CHECK_INT(kd_read_file_text(path, &text), ENOENT);
    CHECK(text == NULL);
    free(path);

    remove_tree(root);
    free(root);
}

/* kd_ds_put_format() formats in place when the text fits and grows the
 * string when it does not, at every length around the boundary. */
static void
test_ds_put_format(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    char expected[70000], piece[300];
    size_t len = 0;

    for (int i = 0; i < 400; i++) {
        int n = i % 257;

        memset(piece, 'a' + i % 26, n);
        piece[n] = '\0';
        kd_ds_put_format(&ds, "%d:%s;", i, piece);
        len += snprintf(expected + len, sizeof expected - len, "%d:%s;", i,
                        piece);
        if (ds.length != len || memcmp(ds.string, expected, len)
            || ds.string[len]) {
            break;
        }
    }
    CHECK_UINT(ds.length, len);
    CHECK_STR(kd_ds_cstr(&ds), expected);
    kd_ds_destroy(&ds);
}

static void
test_target_long_name(void)
{
    char *root = make_proc_root();
    unsigned int pid = 0;

    /* "xyzab-ovs-vswitchd" is cut to 15 characters in comm; psutil takes
     * the command line's base name instead, which starts with it. */
    add_process(root, 1, "systemd", "/sbin/init\0", 11);
    add_process(root, 4242, "xyzab-ovs-vswit",
                "/usr/local/sbin/xyzab-ovs-vswitchd\0--pidfile\0"
                "--detach\0", 54);
    CHECK_INT(kd_target_find_vswitchd(root, &pid), 0);
    CHECK_UINT(pid, 4242);

    /* A 15-character comm that has "ovs-vswitchd" itself. */
    remove_tree(root);
    free(root);
    root = make_proc_root();
    add_process(root, 77, "my-ovs-vswitchd", "my-ovs-vswitchd\0", 16);
    CHECK_INT(kd_target_find_vswitchd(root, &pid), 0);
    CHECK_UINT(pid, 77);

    remove_tree(root);
    free(root);
}

/* psutil splits a command line that a process rewrote with spaces (no
 * final NUL, or a final NUL but a single word with spaces) at the spaces,
 * and takes the base name of the first word. */
static void
test_target_long_name_spaces(void)
{
    static const char no_nul[] =
        "/usr/sbin/xyzab-ovs-vswitchd --pidfile=/var/run/ovs.pid";
    static const char one_word[] =
        "/usr/sbin/xyzab-ovs-vswitchd --pidfile=/var/run/ovs.pid\0";
    char *root = make_proc_root();
    unsigned int pid = 0;

    add_process(root, 4243, "xyzab-ovs-vswit", no_nul, sizeof no_nul - 1);
    CHECK_INT(kd_target_find_vswitchd(root, &pid), 0);
    CHECK_UINT(pid, 4243);
    remove_tree(root);
    free(root);

    root = make_proc_root();
    add_process(root, 4244, "xyzab-ovs-vswit", one_word,
                sizeof one_word - 1);
    CHECK_INT(kd_target_find_vswitchd(root, &pid), 0);
    CHECK_UINT(pid, 4244);
    remove_tree(root);
    free(root);
}

static void
test_target_resolve(void)
{
    char *root = make_proc_root();
    unsigned int tgid = 99;

    add_process(root, 100, "ovs-vswitchd", "ovs-vswitchd\0", 13);
    /* A thread: not listed by readdir() in the real /proc, but its status
     * is there. */
    WRITE_LIT(root, "101/status",
              "Name:\thandler1\nUmask:\t0022\nState:\tS (sleeping)\n"
              "Tgid:\t100\nNgid:\t0\nPid:\t101\nPPid:\t1\n");
    WRITE_LIT(root, "102/status", "Name:\tbroken\nPid:\t102\n");

    CHECK_INT(kd_target_resolve(root, 100, &tgid), 0);
    CHECK_UINT(tgid, 100);
    tgid = 99;
    CHECK_INT(kd_target_resolve(root, 101, &tgid), 0);
    CHECK_UINT(tgid, 100);
    tgid = 99;
    CHECK_INT(kd_target_resolve(root, 999, &tgid), ESRCH);
    CHECK_UINT(tgid, 0);
    CHECK_INT(kd_target_resolve(root, 102, &tgid), ESRCH);
    CHECK_INT(kd_target_resolve(root, 0, &tgid), ESRCH);

    remove_tree(root);
    free(root);
}

static void
test_target_thread_name(void)
{
    char *root = make_proc_root();
    char *name;
    struct kd_sample s;

    add_process(root, 100, "ovs-vswitchd", "ovs-vswitchd\0", 13);
    WRITE_LIT(root, "100/task/100/comm", "ovs-vswitchd\n");
    WRITE_LIT(root, "100/task/101/comm", "handler1\n");
    WRITE_LIT(root, "100/task/102/comm", "revalidator2");
    /* prctl(PR_SET_NAME) takes any byte but NUL: the kernel adds one
     * newline to a name that may hold others. */
    WRITE_LIT(root, "100/task/104/comm", "a\nb\x1b\n\n");

    name = kd_target_thread_name(100, 101, root);
    CHECK_STR(name, "handler1");
    free(name);
    name = kd_target_thread_name(100, 104, root);
    CHECK_STR(name, "a\nb\x1b\n");
    free(name);
    name = kd_target_thread_name(100, 102, root);
    CHECK_STR(name, "revalidator2");
    free(name);
    name = kd_target_thread_name(100, 103, root);
    CHECK(name == NULL);
    free(name);
    name = kd_target_thread_name(555, 101, root);
    CHECK(name == NULL);
    free(name);

    /* As kd_sample_group()'s name function. */
    {
        const struct kd_syscall_entry syscalls[] = {
            sc(103, 0, 1, 1, 1),
            sc(101, 0, 1, 1, 1),
            sc(100, 0, 1, 1, 1),
        };

        memset(&s, 0, sizeof s);
        s.pid = 100;
        s.syscalls = xmemdup(syscalls, sizeof syscalls);
        s.n_syscalls = KD_ARRAY_SIZE(syscalls);
        kd_sample_group(&s, kd_target_thread_name, root);
        if (CHECK_UINT(s.n_threads, 3)) {
            CHECK_STR(s.threads[0].name, "<unknown:100/103>");
            CHECK_STR(s.threads[1].name, "handler1");
            CHECK_STR(s.threads[2].name, "ovs-vswitchd");
        }
        kd_sample_clear(&s);
    }

    remove_tree(root);
    free(root);
}

/* The test table and the runner. */


/* Trigger specs. */

struct trigger_case {
    const char *text;
    enum kd_trigger_type type;
    const char *a;      /* provider, system, library or function. */
    const char *b;      /* probe, event or function, or NULL. */
};

static void
test_trigger_valid(void)
{
    static const struct trigger_case cases[] = {
        { "u:udpif_revalidator:start_dump", KD_TRIGGER_USDT,
          "udpif_revalidator", "start_dump" },
        { "usdt:dpif_netlink_operate__:op_flow_put", KD_TRIGGER_USDT,
          "dpif_netlink_operate__", "op_flow_put" },
        { "t:openvswitch:ovs_dp_upcall", KD_TRIGGER_TRACE,
          "openvswitch", "ovs_dp_upcall" },
        { "trace:sched:sched_switch", KD_TRIGGER_TRACE, "sched",
          "sched_switch" },
        { "t:9p:9p_client_req", KD_TRIGGER_TRACE, "9p", "9p_client_req" },
        { "k:ovs_dp_process_packet", KD_TRIGGER_KPROBE,
          "ovs_dp_process_packet", NULL },
        { "kprobe:tcp_sendmsg.isra.0", KD_TRIGGER_KPROBE,
          "tcp_sendmsg.isra.0", NULL },
        { "kr:ovs_dp_process_packet", KD_TRIGGER_KRETPROBE,
          "ovs_dp_process_packet", NULL },
        { "kretprobe:do_sys_openat2", KD_TRIGGER_KRETPROBE,
          "do_sys_openat2", NULL },
        { "up:bridge_run", KD_TRIGGER_UPROBE, NULL, "bridge_run" },
        { "uprobe:_ZN3foo3barEv", KD_TRIGGER_UPROBE, NULL, "_ZN3foo3barEv" },
        { "ur:bridge_run", KD_TRIGGER_URETPROBE, NULL, "bridge_run" },
        { "upr:bridge_run", KD_TRIGGER_URETPROBE, NULL, "bridge_run" },
        { "uretprobe:bridge_run", KD_TRIGGER_URETPROBE, NULL,
          "bridge_run" },
        { "up:libc.so.6:malloc", KD_TRIGGER_UPROBE, "libc.so.6",
          "malloc" },
        { "ur:/usr/lib/x86_64-linux-gnu/libc.so.6:free",
          KD_TRIGGER_URETPROBE, "/usr/lib/x86_64-linux-gnu/libc.so.6",
          "free" },
        { "up:libstdc++.so.6:_Znwm", KD_TRIGGER_UPROBE, "libstdc++.so.6",
          "_Znwm" },
    };

    for (size_t i = 0; i < KD_ARRAY_SIZE(cases); i++) {
        const struct trigger_case *c = &cases[i];
        struct kd_trigger t;
        char *error = NULL;

        if (!CHECK_INT(kd_trigger_parse(c->text, &t, &error), 0)) {
            printf("    for %s: %s\n", c->text, error ? error : "");
            free(error);
            continue;
        }
        CHECK_INT(t.type, c->type);
        CHECK_STR(t.text, c->text);
        switch (c->type) {
        case KD_TRIGGER_USDT:
            CHECK_STR(t.provider, c->a);
            CHECK_STR(t.probe, c->b);
            break;
        case KD_TRIGGER_TRACE:
            CHECK_STR(t.system, c->a);
            CHECK_STR(t.event, c->b);
            break;
        case KD_TRIGGER_KPROBE:
        case KD_TRIGGER_KRETPROBE:
            CHECK_STR(t.function, c->a);
            break;
        case KD_TRIGGER_UPROBE:
        case KD_TRIGGER_URETPROBE:
            if (c->a) {
                CHECK_STR(t.library, c->a);
            } else {
                CHECK(t.library == NULL);
            }
            CHECK_STR(t.function, c->b);
            break;
        case KD_N_TRIGGER_TYPES:
        default:
            CHECK(false);
        }
        kd_trigger_destroy(&t);
    }
}

static void
test_trigger_type_names(void)
{
    CHECK_STR(kd_trigger_type_name(KD_TRIGGER_USDT), "usdt");
    CHECK_STR(kd_trigger_type_name(KD_TRIGGER_TRACE), "trace");
    CHECK_STR(kd_trigger_type_name(KD_TRIGGER_KPROBE), "kprobe");
    CHECK_STR(kd_trigger_type_name(KD_TRIGGER_KRETPROBE), "kretprobe");
    CHECK_STR(kd_trigger_type_name(KD_TRIGGER_UPROBE), "uprobe");
    CHECK_STR(kd_trigger_type_name(KD_TRIGGER_URETPROBE), "uretprobe");
}

static void
test_trigger_invalid(void)
{
    static const struct {
        const char *text;
        const char *error;
    } cases[] = {
        { "", "[]; Can't extract probe type." },
        { "up", "[up]; Can't extract probe type." },
        { "x:y", "[x:y]; Invalid probe type 'x'" },
        { "U:a:b", "[U:a:b]; Invalid probe type 'U'" },
        { ":a:b", "[:a:b]; Invalid probe type ''" },
        { "u:a", "[u:a]; Invalid number of arguments for USDT (expected "
          "u:PROVIDER:PROBE)" },
        { "u:a:b:c", "[u:a:b:c]; Too many ':' separated parts" },
        { "u::b", "[u::b]; Invalid USDT provider '': is empty" },
        { "u:a:", "[u:a:]; Invalid USDT probe '': is empty" },
        { "u:1a:b", "[u:1a:b]; Invalid USDT provider '1a': must be a C "
          "identifier" },
        { "u:a b:c", "[u:a b:c]; Invalid USDT provider 'a b': must be a C "
          "identifier" },
        { "u:a;b:c", "[u:a;b:c]; Invalid USDT provider 'a;b': must be a C "
          "identifier" },
        { "u:a:b(", "[u:a:b(]; Invalid USDT probe 'b(': must be a C "
          "identifier" },
        { "u:a:{b}", "[u:a:{b}]; Invalid USDT probe '{b}': must be a C "
          "identifier" },
        { "u:a:$b", "[u:a:$b]; Invalid USDT probe '$b': must be a C "
          "identifier" },
        { "u:a:\"b\"", "[u:a:\"b\"]; Invalid USDT probe '\"b\"': must be a "
          "C identifier" },
        { "u:a:b\nc", "[u:a:b\\x0ac]; Invalid USDT probe 'b\\x0ac': must be "
          "a C identifier" },
        { "t:sched", "[t:sched]; Invalid number of arguments for TRACE "
          "(expected t:SYSTEM:EVENT)" },
        { "t:sched:sched-switch", "[t:sched:sched-switch]; Invalid "
          "tracepoint event 'sched-switch': may only hold letters, digits "
          "and '_'" },
        { "t:../x:y", "[t:../x:y]; Invalid tracepoint system '../x': may "
          "only hold letters, digits and '_'" },
        { "k:a:b", "[k:a:b]; Invalid number of arguments for K(RET)PROBE "
          "(expected k:FUNCTION)" },
        { "kr:.foo", "[kr:.foo]; Invalid kernel function '.foo': must be a "
          "function name (a C identifier, optionally with '.' suffixes)" },
        { "k:foo*", "[k:foo*]; Invalid kernel function 'foo*': must be a "
          "function name (a C identifier, optionally with '.' suffixes)" },
        { "up:", "[up:]; Invalid function '': is empty" },
        { "up:a:b:c", "[up:a:b:c]; Too many ':' separated parts" },
        { "up:foo);", "[up:foo);]; Invalid function 'foo);': must be a "
          "function name (a C identifier, optionally with '.' suffixes)" },
        { "up:lib c.so:f", "[up:lib c.so:f]; Invalid library 'lib c.so': "
          "may only hold letters, digits and '_', '.', '/', '+', '-'" },
        { "up:../../etc/x:f", "[up:../../etc/x:f]; Invalid library "
          "'../../etc/x': must not contain '..'" },
        { "up:$(reboot):f", "[up:$(reboot):f]; Invalid library "
          "'$(reboot)': may only hold letters, digits and '_', '.', '/', "
          "'+', '-'" },
        { "ur:", "[ur:]; Invalid function '': is empty" },
    };

    for (size_t i = 0; i < KD_ARRAY_SIZE(cases); i++) {
        struct kd_trigger t;
        char *error = NULL;

        if (CHECK_INT(kd_trigger_parse(cases[i].text, &t, &error),
                      EINVAL)) {
            CHECK_STR(error, cases[i].error);
        }
        free(error);
    }
}

static void
test_trigger_too_long(void)
{
    char text[KD_TRIGGER_PART_MAX + 16];
    struct kd_trigger t;
    char *error = NULL;

    /* The longest part that is accepted, then one more character. */
    memset(text, 'a', sizeof text);
    memcpy(text, "up:", 3);
    text[3 + KD_TRIGGER_PART_MAX] = '\0';
    CHECK_INT(kd_trigger_parse(text, &t, &error), 0);
    kd_trigger_destroy(&t);

    text[3 + KD_TRIGGER_PART_MAX] = 'a';
    text[4 + KD_TRIGGER_PART_MAX] = '\0';
    CHECK_INT(kd_trigger_parse(text, &t, &error), EINVAL);
    CHECK_CONTAINS(error, "is too long");
    /* The quoted text is cut, so the message stays short. */
    CHECK(strlen(error) < 300);
    free(error);
}

static void
test_trigger_quote(void)
{
    char buf[16];

    CHECK_STR(kd_trigger_quote("abc", buf, sizeof buf), "abc");
    CHECK_STR(kd_trigger_quote("a\tb\\", buf, sizeof buf), "a\\x09b\\x5c");
    CHECK_STR(kd_trigger_quote("0123456789abcdef", buf, sizeof buf),
              "0123456789ab...");
    /* What fits is never cut (found by fuzzing). */
    CHECK_STR(kd_trigger_quote("0123456789abcde", buf, sizeof buf),
              "0123456789abcde");
    CHECK_STR(kd_trigger_quote("0123456789ab", buf, sizeof buf),
              "0123456789ab");
}

static void
test_capture_source_triggers(void)
{
    struct kd_options o = kd_options_defaults;
    struct kd_layout l;
    char *error, *text = NULL;

    CHECK_INT(kd_layout_init(&l, true, &error), 0);

    /* Time mode: no ring buffer, no trigger function. */
    CHECK_INT(kd_capture_source(&o, 1, &l, NULL, false, &text, &error), 0);
    CHECK_CONTAINS(text, "\n#if 0\nBPF_RINGBUF_OUTPUT(events, 1024);\n");
    CHECK_CONTAINS(text, "\n#if 0\nint\nkd_start_trigger_probe(");
    CHECK_CONTAINS(text, "\n#if 0\nint\nkd_stop_trigger_probe(");
    free(text);

    /* Both triggers, a prefix, and the page count. */
    o.start_trigger = "up:a";
    o.stop_trigger = "ur:a";
    o.buffer_page_count = 64;
    CHECK_INT(kd_capture_source(&o, 1, &l, "/* prefix */\n", false, &text,
                                &error), 0);
    CHECK(!strncmp(text, "/* prefix */\n", 13));
    CHECK_CONTAINS(text, "\n#if 1\nBPF_RINGBUF_OUTPUT(events, 64);\n");
    CHECK_CONTAINS(text, "\n#if 1\nint\nkd_start_trigger_probe(");
    CHECK_CONTAINS(text, "\n#if 1\nint\nkd_stop_trigger_probe(");
    CHECK(find_placeholder(text) == NULL);
    /* No trigger text reaches the program. */
    CHECK_NOT_CONTAINS(text, "up:a");
    free(text);
}


/* Syscall events, stacks and upcalls. */

static void
test_format_frame(void)
{
    char buf[128];

    CHECK_STR(kd_format_frame("do_syscall_64", 0x68, "kernel", 0x1234, buf,
                              sizeof buf), "do_syscall_64+0x68 [kernel]");
    CHECK_STR(kd_format_frame("main", 0x1a, "/usr/sbin/ovs-vswitchd", 1, buf,
                              sizeof buf), "main+0x1a [ovs-vswitchd]");
    CHECK_STR(kd_format_frame(NULL, 0, "/lib/x86_64-linux-gnu/libc.so.6", 1,
                              buf, sizeof buf), "[unknown] [libc.so.6]");
    CHECK_STR(kd_format_frame(NULL, 0, NULL, 0x7fff19f2bd00, buf,
                              sizeof buf), "[unknown] 0x7fff19f2bd00");
    CHECK_STR(kd_format_frame("f", 0, NULL, 1, buf, sizeof buf), "f+0x0");
}

static void
test_frame_is_tracing(void)
{
    CHECK(kd_frame_is_tracing("bpf_prog_9526e9efb47c646d_raw_tracepoint__"
                              "sys_exit+0x447 [bpf]"));
    CHECK(kd_frame_is_tracing("bpf_trace_run2+0x159 [kernel]"));
    CHECK(kd_frame_is_tracing("__bpf_trace_sys_exit+0xc [kernel]"));
    CHECK(kd_frame_is_tracing("__traceiter_sys_exit+0x31 [kernel]"));
    CHECK(!kd_frame_is_tracing("syscall_exit_work+0xbc [kernel]"));
    CHECK(!kd_frame_is_tracing("do_syscall_64+0x22e [kernel]"));
}

static void
test_report_events(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    kd_report_events_header(&ds);
    kd_report_event(&ds, 2161821694935486ull, 2161821695031201ull, 3359699,
                    "revalidator14", 202);
    kd_report_frame(&ds, "__GI___lll_lock_wait+0x30 [libc.so.6]");
    kd_report_event(&ds, 1000, 1234567890, 7, "a-very-long-thread-name",
                    100000);
    /* Literal text from the reference's format strings. */
    CHECK_STR(kd_ds_cstr(&ds),
        "\n\n# SYSCALL EVENTS:\n"
        "           ENTRY (ns)           EXIT (ns)        TID COMM        "
        "     DELTA (us)  SYSCALL\n"
        "  ------------------- ------------------- ---------- ------------"
        "---- ----------  ----------------\n"
        "     2161821694935486    2161821695031201    3359699 revalidator1"
        "4            95  futex\n"
        "          __GI___lll_lock_wait+0x30 [libc.so.6]\n"
        "                 1000          1234567890          7 a-very-long-"
        "thread-name  1,234,566  [unknown: 100000]\n");
    kd_ds_destroy(&ds);

    kd_report_lost_stacks(&ds, 0);
    CHECK_STR(kd_ds_cstr(&ds), "");
    kd_report_lost_stacks(&ds, 3);
    CHECK_STR(kd_ds_cstr(&ds),
        "\n#WARNING: We where not able to display 3 stack traces!\n"
        "#         Consider increasing the stack trace size using\n"
        "#         the '--stack-trace-size' option.\n"
        "#         Note that this can also happen due to a stack id\n"
        "#         collision.\n");
    kd_ds_destroy(&ds);
}

static void
test_report_upcalls(void)
{
    uint64_t ok[2] = { 5, 3 }, enobufs[2] = { 0, 2 }, eagain[2] = { 1, 0 };
    uint64_t zero[2] = { 0, 0 };
    struct kd_upcall_entry all[] = {
        { 105, enobufs }, { 0, ok }, { 11, eagain }, { 7, zero },
    };
    struct kd_upcall_entry only_ok[] = { { 0, ok } };
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    kd_report_upcalls(&ds, all, KD_ARRAY_SIZE(all), 2);
    CHECK_STR(kd_ds_cstr(&ds),
        "\n\n# UPCALL STATISTICS (TOTAL [CPU_ID: N_UPCALLS_PER_CPU, ...]):\n"
        "  Total upcalls       : 11 [0: 6, 1: 5]\n"
        "  Successfull upcalls : 8 [0: 5, 1: 3]\n"
        "  Failed upcalls      : 3 [0: 1, 1: 2]\n"
        "     11, EAGAIN       : 1 [0: 1]\n"
        "    105, ENOBUFS      : 2 [1: 2]\n");
    kd_ds_destroy(&ds);

    /* Only successes: the reference prints the total alone. */
    kd_report_upcalls(&ds, only_ok, 1, 2);
    CHECK_STR(kd_ds_cstr(&ds),
        "\n\n# UPCALL STATISTICS (TOTAL [CPU_ID: N_UPCALLS_PER_CPU, ...]):\n"
        "  Total upcalls       : 8 [0: 5, 1: 3]\n");
    kd_ds_destroy(&ds);

    /* Nothing at all: no section. */
    kd_report_upcalls(&ds, all + 3, 1, 2);
    CHECK_STR(kd_ds_cstr(&ds), "");
    kd_ds_destroy(&ds);
}

static void
test_event_state(void)
{
    struct kd_event_state st;
    struct kd_event e = { .ts = 200, .tid = 7, .id = KD_EVENT_SYSCALL,
                          .entry_ts = 100, .syscall = 39,
                          .user_stack_id = 4, .kernel_stack_id = -14 };

    memset(&st, 0, sizeof st);
    for (int i = 0; i < 5000; i++) {
        kd_event_state_update(&st, &e);
    }
    CHECK_UINT(st.n_syscalls, 5000);
    CHECK_UINT(st.syscalls[4999].entry_ts, 100);
    CHECK_UINT(st.syscalls[4999].exit_ts, 200);
    CHECK_UINT(st.syscalls[0].tid, 7);
    CHECK_UINT(st.syscalls[0].syscall, 39);
    CHECK_INT(st.syscalls[0].user_stack_id, 4);
    CHECK_INT(st.syscalls[0].kernel_stack_id, -14);
    CHECK_UINT(st.n_starts, 0);

    e.id = KD_EVENT_START_TRIGGER;
    e.ts = 1000;
    kd_event_state_update(&st, &e);
    e.id = KD_EVENT_STOP_TRIGGER;
    e.ts = 3000;
    kd_event_state_update(&st, &e);
    CHECK_UINT(st.n_starts, 1);
    CHECK_UINT(st.n_stops, 1);
    CHECK_UINT(st.start_ts, 1000);
    CHECK_UINT(st.stop_ts, 3000);
    CHECK_UINT(st.n_syscalls, 5000);
    free(st.syscalls);
}

static void
test_options_max_threads(void)
{
    struct kd_options o;

    CHECK_UINT(kd_options_defaults.max_threads, 8192);
    PARSE_OK(&o, "--max-threads", "100000", NULL);
    CHECK_UINT(o.max_threads, 100000);
    PARSE_OK(&o, "--max-t=64", NULL);
    CHECK_UINT(o.max_threads, 64);
    CHECK_USAGE_ERROR("argument --max-threads: must be at least 64",
                      "--max-threads", "63", NULL);
    CHECK_USAGE_ERROR("argument --max-threads: must be at most 1048576",
                      "--max-threads", "1048577", NULL);
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
    CHECK_INT(kd_capture_source(&o, 1, &l, NULL, true, &text, &error), 0);
    CHECK_CONTAINS(text, "\n#if 1\nBPF_RINGBUF_OUTPUT(events, 1024);\n");
    CHECK_CONTAINS(text, "\n#if 1\n#if 1\nBPF_STACK_TRACE(stack_traces, "
                   "128);\n");
    CHECK_CONTAINS(text, "u64 min_ns = 50000ULL;");
    CHECK_CONTAINS(text, "(1 && nr == KD_SYSCALL_POLL)");
    CHECK_CONTAINS(text, "#define KD_MAX_THREADS      100\n");
    CHECK_CONTAINS(text, "#define KD_MAX_SYSCALLS     800\n");
    CHECK_CONTAINS(text, "#define KD_MAX_IRQS         200\n");
    CHECK_CONTAINS(text, "\n#if 1\nBPF_PERCPU_HASH(upcall_count");
    CHECK(find_placeholder(text) == NULL);
    free(text);

    /* Stacks off: no stack map at all. */
    o.stack_trace_size = 0;
    CHECK_INT(kd_capture_source(&o, 1, &l, NULL, false, &text, &error), 0);
    CHECK_CONTAINS(text, "\n#if 1\n#if 0\nBPF_STACK_TRACE(stack_traces, "
                   "0);\n");
    CHECK_CONTAINS(text, "\n#if 0\nBPF_PERCPU_HASH(upcall_count");
    free(text);
}


/* Beyond the reference: filters, JSON, summary. */

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

static void
test_thread_filter(void)
{
    static const unsigned int tids[] = { 42 };
    struct kd_thread_filter f;

    CHECK_INT(kd_thread_filter_init(&f, NULL, NULL, 0), 0);
    CHECK(kd_thread_filter_match(&f, 1, "anything"));
    kd_thread_filter_destroy(&f);

    CHECK_INT(kd_thread_filter_init(&f, "^(handler|revalidator)[0-9]+$",
                                    tids, 1), 0);
    CHECK(kd_thread_filter_match(&f, 7, "handler12"));
    CHECK(kd_thread_filter_match(&f, 7, "revalidator3"));
    CHECK(!kd_thread_filter_match(&f, 7, "urcu3"));
    CHECK(kd_thread_filter_match(&f, 42, "urcu3"));
    kd_thread_filter_destroy(&f);

    CHECK_INT(kd_thread_filter_init(&f, "(", NULL, 0), EINVAL);
}

static char *
filter_name(uint32_t pid, uint32_t tid, void *aux)
{
    (void) pid;
    (void) aux;
    return kd_xasprintf(tid == 1 ? "handler1" : tid == 2 ? "urcu2"
                        : "revalidator3");
}

static void
test_sample_filter(void)
{
    struct kd_sample s = { .pid = 1 };
    struct kd_thread_filter f;

    s.syscalls = kd_xcalloc(3, sizeof *s.syscalls);
    s.n_syscalls = 3;
    for (int i = 0; i < 3; i++) {
        s.syscalls[i].key.tid = i + 1;
        s.syscalls[i].key.nr = 39;
        s.syscalls[i].stat.count = 10 * (i + 1);
    }
    kd_sample_group(&s, filter_name, NULL);
    CHECK_UINT(s.n_threads, 3);
    kd_thread_filter_init(&f, "handler|revalidator", NULL, 0);
    kd_sample_filter(&s, &f);
    CHECK_UINT(s.n_threads, 2);
    if (s.n_threads == 2) {
        CHECK_STR(s.threads[0].name, "handler1");
        CHECK_UINT(s.threads[0].syscalls[0].stat.count, 10);
        CHECK_STR(s.threads[1].name, "revalidator3");
        CHECK_UINT(s.threads[1].syscalls[0].stat.count, 30);
    }
    kd_thread_filter_destroy(&f);
    kd_sample_clear(&s);
}

static void
test_json_string(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    kd_json_string(&ds, "a\"b\\c\nd\te\x01\x7f");
    CHECK_STR(kd_ds_cstr(&ds), "\"a\\\"b\\\\c\\nd\\te\\u0001\\u007f\"");
    kd_ds_destroy(&ds);

    /* Valid UTF-8 as is; invalid bytes as their Latin-1 code points. */
    kd_json_string(&ds, "h\xc3\xa9 \xf0\x9f\x98\x80 \xff\xc3(\xed\xa0\x80");
    CHECK_STR(kd_ds_cstr(&ds), "\"h\xc3\xa9 \xf0\x9f\x98\x80 \\u00ff\\u00c3("
              "\\u00ed\\u00a0\\u0080\"");
    kd_ds_destroy(&ds);

    /* Overlong encoding of '/'. */
    kd_json_string(&ds, "\xc0\xaf");
    CHECK_STR(kd_ds_cstr(&ds), "\"\\u00c0\\u00af\"");
    kd_ds_destroy(&ds);
}

static void
test_summary(void)
{
    struct kd_stat run = { .count = 2, .total_ns = 100000000 };
    struct kd_stat ready = { .count = 3, .total_ns = 250000000,
                             .max_ns = 120000000 };
    struct kd_syscall_entry sys[2] = {
        { { 1, 7 }, { 5, 400000000, 0, 0 } },       /* poll: left out. */
        { { 1, 0 }, { 2, 50000000, 0, 0 } },        /* read. */
    };
    struct kd_thread threads[2] = {
        { .tid = 1, .name = "handler1", .syscalls = sys, .n_syscalls = 2,
          .run = &run },
        { .tid = 2, .name = "urcu2", .ready = &ready },
    };
    struct kd_sample s = { .pid = 1, .threads = threads, .n_threads = 2 };
    struct kd_summary_row rows[2];
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    kd_summary_compute(&s, rows);
    CHECK_UINT(rows[0].tid, 2);         /* Longest run-queue wait first. */
    CHECK_UINT(rows[1].syscall_ns, 50000000);
    kd_report_summary(&ds, rows, 2, 500000000);
    CHECK_STR(kd_ds_cstr(&ds),
        "\n# SUMMARY: share of the 500.0 ms sample window spent\n"
        "TID        THREAD            ON CPU  RUN QUEUE  STOPPED  HARD IRQ"
        "  SOFT IRQ  SYSCALLS   LONGEST WAIT ns\n"
        "         2 urcu2               0.0%      50.0%     0.0%      0.0%"
        "      0.0%      0.0%       120,000,000\n"
        "         1 handler1           20.0%       0.0%     0.0%      0.0%"
        "      0.0%     10.0%                 0\n"
        "# Longest in the run queue: urcu2 (TID 2), 250,000,000 ns in all "
        "(50.0% of the window), 120,000,000 ns at most.\n");
    kd_ds_destroy(&ds);

    kd_report_json_summary(&ds, rows, 2, 500000000);
    CHECK_STR(kd_ds_cstr(&ds),
        "{\"window_ns\":500000000,\"threads\":[{\"tid\":2,\"name\":\"urcu2\","
        "\"run_ns\":0,\"ready_ns\":250000000,\"stopped_ns\":0,"
        "\"hard_irq_ns\":0,\"soft_irq_ns\":0,\"syscalls_but_poll_ns\":0,"
        "\"longest_ready_ns\":120000000},{\"tid\":1,\"name\":\"handler1\","
        "\"run_ns\":100000000,\"ready_ns\":0,\"stopped_ns\":0,"
        "\"hard_irq_ns\":0,\"soft_irq_ns\":0,"
        "\"syscalls_but_poll_ns\":50000000,\"longest_ready_ns\":0}],"
        "\"worst\":2}");
    kd_ds_destroy(&ds);
}


static void
test_histograms(void)
{
    uint64_t counts[KD_HIST_SLOTS] = { 0 };
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    uint64_t low, high;

    kd_hist_range(0, &low, &high);
    CHECK_UINT(low, 0);
    CHECK_UINT(high, 0);
    kd_hist_range(1, &low, &high);
    CHECK_UINT(low, 0);
    CHECK_UINT(high, 1);
    kd_hist_range(3, &low, &high);
    CHECK_UINT(low, 4);
    CHECK_UINT(high, 7);
    kd_hist_range(64, &low, &high);
    CHECK_UINT(high, UINT64_MAX);

    CHECK_UINT(kd_hist_percentile(counts, 50, 0), 0);
    counts[3] = 50;         /* 4..7 */
    counts[5] = 40;         /* 16..31 */
    counts[7] = 10;         /* 64..127 */
    CHECK_UINT(kd_hist_percentile(counts, 50, 100), 7);
    CHECK_UINT(kd_hist_percentile(counts, 51, 100), 31);
    CHECK_UINT(kd_hist_percentile(counts, 90, 100), 31);
    CHECK_UINT(kd_hist_percentile(counts, 91, 100), 100);
    CHECK_UINT(kd_hist_percentile(counts, 99, 100), 100);

    counts[7] = 0;
    counts[2] = 20;         /* 2..3 */
    kd_report_hist(&ds, counts, 20);
    CHECK_STR(kd_ds_cstr(&ds),
        "                                 ns                  : count     "
        "distribution\n"
        "                                     0 -> 1          : 0        "
        "|                                        |\n"
        "                                     2 -> 3          : 20       "
        "|****************                        |\n"
        "                                     4 -> 7          : 50       "
        "|****************************************|\n"
        "                                     8 -> 15         : 0        "
        "|                                        |\n"
        "                                    16 -> 31         : 40       "
        "|********************************        |\n"
        "                            p50 <= 7 ns, p90 <= 20 ns, p99 <= 20 "
        "ns, max 20 ns\n");
    kd_ds_destroy(&ds);
}

static const struct test tests[] = {
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
    TEST(test_host_info_format),
    TEST(test_options_last_wins),
    TEST(test_options_short_equals),
    TEST(test_options_unrecognized_together),
    TEST(test_options_ambiguous_with_value),
    TEST(test_options_debug_invalid_int),
    TEST(test_options_minus_zero),
    TEST(test_options_float_underflow),
    TEST(test_options_negative_number_rule),
    TEST(test_options_flag_attached),
    TEST(test_parse_u64),
    TEST(test_parse_seconds),
    TEST(test_next_power_of_two),
    TEST(test_template_expand),
    TEST(test_template_untouched),
    TEST(test_template_errors),
    TEST(test_layout_headers),
    TEST(test_capture_source_headers),
    TEST(test_capture_source_btf),
    TEST(test_capture_source_values_verbatim),
    TEST(test_syscalls),
    TEST(test_format_thousands),
    TEST(test_read_file_line),
    TEST(test_ds_put_format),
    TEST(test_put_field),
    TEST(test_put_safe),
    TEST(test_report_timestamp),
#if defined(__x86_64__)
    TEST(test_report_sample),
#endif
    TEST(test_report_empty_sample),
    TEST(test_report_hostile_names),
    TEST(test_sample_group),
    TEST(test_sample_group_no_name_fn),
    TEST(test_target_find_vswitchd),
    TEST(test_target_long_name),
    TEST(test_target_long_name_spaces),
    TEST(test_target_resolve),
    TEST(test_target_thread_name),
    TEST(test_trigger_valid),
    TEST(test_trigger_type_names),
    TEST(test_trigger_invalid),
    TEST(test_trigger_too_long),
    TEST(test_trigger_quote),
    TEST(test_capture_source_triggers),
    TEST(test_format_frame),
    TEST(test_frame_is_tracing),
    TEST(test_report_events),
    TEST(test_report_upcalls),
    TEST(test_event_state),
    TEST(test_options_max_threads),
    TEST(test_capture_source_events),
    TEST(test_options_ours),
    TEST(test_thread_filter),
    TEST(test_sample_filter),
    TEST(test_json_string),
    TEST(test_summary),
    TEST(test_histograms),
};

int
main(int argc, char *argv[])
{
    return check_main(tests, KD_ARRAY_SIZE(tests), argc, argv);
}
