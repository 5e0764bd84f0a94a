/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* The command line, parsed as the reference does, and what it needs. */

#include "options.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "metrics.h"
#include "parse.h"
#include "usage.h"
#include "util.h"

#ifndef KD_VERSION
#define KD_VERSION "unknown"
#endif

const struct kd_options kd_options_defaults = {
    .debug = 0,
    .pid = 0,
    .syscall_events = false,
    .syscall_events_ns = 0,
    .buffer_page_count = 1024,
    .sample_count = 1,
    .sample_interval = 0,
    .sample_time = 0.5,
    .skip_syscall_poll_events = false,
    .skip_upcall_stats = false,
    .stack_trace_size = 4096,
    .start_trigger = NULL,
    .stop_trigger = NULL,
    .trigger_delta = 0,
    .max_threads = 8192,
    .long_poll = false,
    .long_poll_ns = KD_LONG_POLL_DEFAULT_NS,
    .unwind_mib = KD_UNWIND_DEFAULT_MIB,
    .trace_history = KD_TRACE_HISTORY_DEFAULT,
    .trace_max_mib = KD_TRACE_MIB_DEFAULT,
    .trace_max_files = KD_TRACE_FILES_DEFAULT,
    .on_long_poll_period_ns = KD_ON_LONG_POLL_PERIOD_DEFAULT_NS,
    .metrics_tasks = KD_METRICS_TASKS_DEFAULT,
};

static kd_option_apply_fn kd_apply_help, kd_apply_version, kd_apply_debug,
    kd_apply_uint, kd_apply_pages, kd_apply_duration_ns, kd_apply_seconds,
    kd_apply_string, kd_apply_thread, kd_apply_tids, kd_apply_metrics;

/* The offset of member F of struct kd_options, which must be of type T. */
#define KD_FIELD(F, T)                                                  \
    (offsetof(struct kd_options, F)                                     \
     + 0 * sizeof(_Generic(((struct kd_options *) 0)->F, T: 1)))

/* How an option's value is taken, and where. */
#define KD_UINT(F, MIN, MAX)                                            \
    .apply = kd_apply_uint, .field = KD_FIELD(F, unsigned int),         \
    .min = (MIN), .max = (MAX)
#define KD_DURATION_NS(F, BARE)                                         \
    .apply = kd_apply_duration_ns, .field = KD_FIELD(F, uint64_t),      \
    .max = UINT64_MAX / 2, .bare = (BARE)
#define KD_SECONDS(F, MIN)                                              \
    .apply = kd_apply_seconds, .field = KD_FIELD(F, double),            \
    .min_seconds = (MIN)
#define KD_STRING(F)                                                    \
    .apply = kd_apply_string, .field = KD_FIELD(F, const char *)
#define KD_SETS(F) .sets_flag = true, .flag = KD_FIELD(F, bool)

/* The options, in the reference's order, then ours: from this table come
 * the parsing, the usage and --help. */
static const struct kd_option_def kd_option_defs[] = {
    {
        .short_name = 'h', .long_name = "help", .ref = true,
        .apply = kd_apply_help,
        .help = "show this help message and exit",
    }, {
        .short_name = 'D', .long_name = "debug", .ref = true,
        .arg = KD_ARG_OPTIONAL, .metavar = "DEBUG",
        .apply = kd_apply_debug, .field = KD_FIELD(debug, unsigned int),
        .max = 0xff, .bare = 0x3f,
        .help = "Enable eBPF debugging",
    }, {
        .short_name = 'p', .long_name = "pid", .ref = true,
        .arg = KD_ARG_REQUIRED, .metavar = "VSWITCHD_PID",
        KD_UINT(pid, 0, KD_MAX_PID),
        .one_process = true,
        .help = "ovs-vswitch's PID",
    }, {
        .short_name = 's', .long_name = "syscall-events", .ref = true,
        .arg = KD_ARG_OPTIONAL, .metavar = "DURATION_NS",
        KD_DURATION_NS(syscall_events_ns, 0), KD_SETS(syscall_events),
        .samples = true,
        .help = "Record syscall events that take longer than\n"
                "DURATION_NS. Omit the duration value to record all\n"
                "syscall events",
    }, {
        .long_name = "buffer-page-count", .ref = true,
        .arg = KD_ARG_REQUIRED, .metavar = "NUMBER",
        .apply = kd_apply_pages,
        .field = KD_FIELD(buffer_page_count, unsigned int),
        .max = KD_MAX_PAGE_COUNT,
        .help = "Number of BPF ring buffer pages, default 1024",
    }, {
        .long_name = "sample-count", .ref = true,
        .arg = KD_ARG_REQUIRED, .metavar = "RUNS",
        KD_UINT(sample_count, 1, KD_MAX_SAMPLE_COUNT),
        KD_SETS(sample_count_set),
        .help = "Number of sample runs, default 1",
    }, {
        .long_name = "sample-interval", .ref = true,
        .arg = KD_ARG_REQUIRED, .metavar = "SECONDS",
        KD_SECONDS(sample_interval, 0), .samples = true,
        .help = "Delay between sample runs, default 0",
    }, {
        .long_name = "sample-time", .ref = true,
        .arg = KD_ARG_REQUIRED, .metavar = "SECONDS",
        KD_SECONDS(sample_time, 1e-9), .samples = true,
        .help = "Sample time, default 0.5 seconds",
    }, {
        .long_name = "skip-syscall-poll-events", .ref = true,
        KD_SETS(skip_syscall_poll_events), .samples = true,
        .help = "Skip poll() syscalls with --syscall-events",
    }, {
        .long_name = "skip-upcall-stats", .ref = true,
        KD_SETS(skip_upcall_stats),
        .help = "Skip the collection of upcall statistics",
    }, {
        .long_name = "stack-trace-size", .ref = true,
        .arg = KD_ARG_REQUIRED, .metavar = "STACK_TRACE_SIZE",
        KD_UINT(stack_trace_size, 0, KD_MAX_STACK_TRACES),
        .help = "Number of unique stack traces that can be recorded,\n"
                "default 4096. 0 to disable",
    }, {
        .long_name = "start-trigger", .ref = true,
        .arg = KD_ARG_REQUIRED, .metavar = "TRIGGER",
        KD_STRING(start_trigger), .samples = true,
        .help = "Start trigger, see documentation for details",
    }, {
        .long_name = "stop-trigger", .ref = true,
        .arg = KD_ARG_REQUIRED, .metavar = "TRIGGER",
        KD_STRING(stop_trigger), .samples = true,
        .help = "Stop trigger, see documentation for details",
    }, {
        .long_name = "trigger-delta", .ref = true,
        .arg = KD_ARG_OPTIONAL, .metavar = "DURATION_NS",
        KD_DURATION_NS(trigger_delta, 0), .samples = true,
        .help = "Only report event when the trigger duration >\n"
                "DURATION_NS, default 0 (all events)",
    }, {
        .long_name = "max-threads",
        .arg = KD_ARG_REQUIRED, .metavar = "NUMBER",
        KD_UINT(max_threads, KD_MIN_MAX_THREADS, KD_MAX_MAX_THREADS),
        .help = "Size the eBPF maps for NUMBER threads (64 to\n"
                "1048576), default 8192; see kernel_delay(8)",
    }, {
        .long_name = "thread",
        .arg = KD_ARG_REQUIRED, .metavar = "REGEX",
        .apply = kd_apply_thread,
        .field = KD_FIELD(thread_regex, const char *),
        .help = "Report only threads whose name matches REGEX\n"
                "(POSIX extended), or that --tid lists",
    }, {
        .long_name = "tid",
        .arg = KD_ARG_REQUIRED, .metavar = "TID[,TID...]",
        .apply = kd_apply_tids, .min = 1, .max = KD_MAX_PID,
        .one_process = true,
        .help = "Report only these threads, or those --thread\n"
                "matches",
    }, {
        .long_name = "summary",
        KD_SETS(summary), .samples = true,
        .help = "After each sample, one table of where each\n"
                "thread's time went, worst run-queue wait first",
    }, {
        .long_name = "histogram",
        KD_SETS(histogram), .samples = true,
        .help = "Log2 histograms of syscall latency, run-queue\n"
                "wait and time on CPU, per thread",
    }, {
        .long_name = "json",
        KD_SETS(json),
        .help = "One JSON object per sample (JSON Lines) instead\n"
                "of the text report; see kernel_delay(8)",
    }, {
        .long_name = "list-probes",
        KD_SETS(list_probes),
        .help = "List the target's USDT probes and exit",
    }, {
        .long_name = "long-poll-events",
        .arg = KD_ARG_OPTIONAL, .metavar = "DURATION_NS",
        KD_DURATION_NS(long_poll_ns, KD_LONG_POLL_DEFAULT_NS),
        KD_SETS(long_poll), .no_samples = true,
        .help = "Stay attached and explain, as it ends, every gap\n"
                "between two poll() calls of a thread longer than\n"
                "DURATION_NS (default 1000000000), and one that has\n"
                "not ended yet as it grows: where the time went and\n"
                "who ran instead; see kernel_delay(8)",
    }, {
        .long_name = "wall-clock",
        KD_SETS(wall_clock), .samples = true,
        .help = "With -s, list the events' ENTRY and EXIT as UTC\n"
                "wall-clock times, not CLOCK_MONOTONIC ns",
    }, {
        .short_name = 'q', .long_name = "quiet",
        KD_SETS(quiet),
        .help = "No status line on standard error while waiting\n"
                "(a terminal's only)",
    }, {
        .long_name = "wait-target",
        KD_SETS(wait_target), .watch_only = true, .follows_name = true,
        .help = "With --long-poll-events: wait for ovs-vswitchd\n"
                "when it is not running, and re-attach when it\n"
                "restarts, instead of ending the watch",
    }, {
        .long_name = "node-name",
        .arg = KD_ARG_REQUIRED, .metavar = "NAME",
        KD_STRING(node_name),
        .help = "Add \"node\":NAME to every JSON record (default:\n"
                "$KD_NODE_NAME when set)",
    }, {
        .long_name = "metrics",
        .arg = KD_ARG_REQUIRED, .metavar = "ADDR:PORT",
        .apply = kd_apply_metrics, .field = KD_FIELD(metrics, const char *),
        .watch_only = true,
        .help = "With --long-poll-events: serve Prometheus metrics\n"
                "of the intervals, their causes and the tool's\n"
                "health at http://ADDR:PORT/metrics",
    }, {
        .long_name = "metrics-tasks",
        .arg = KD_ARG_REQUIRED, .metavar = "N",
        KD_UINT(metrics_tasks, 0, KD_METRICS_TASKS_MAX),
        .help = "With --metrics: name the N tasks that ran longest\n"
                "instead of the target's threads (0 to 100,\n"
                "default 5), the others as \"other\"",
    }, {
        .long_name = "profile-hz",
        .arg = KD_ARG_REQUIRED, .metavar = "HZ",
        KD_UINT(profile_hz, 0, KD_MAX_PROFILE_HZ),
        .help = "Sample the target's stacks HZ times a second (0\n"
                "to 10000, default 0: off) and show what each long\n"
                "poll interval, or each thread in a sample, ran",
    }, {
        .long_name = "off-cpu",
        KD_SETS(off_cpu),
        .help = "Show where each long poll interval, or each\n"
                "thread in a sample, slept, for how long, and who\n"
                "woke it",
    }, {
        .long_name = "folded",
        .arg = KD_ARG_REQUIRED, .metavar = "FILE",
        KD_STRING(folded), .watch_only = true,
        .help = "With --profile-hz or --off-cpu: append each long\n"
                "interval's stacks to FILE in the folded format of\n"
                "flame graph tools",
    }, {
        .long_name = "frame-pointers",
        KD_SETS(frame_pointers),
        .help = "Walk user stacks through frame pointers, as the\n"
                "reference does, instead of unwinding them from\n"
                "each mapping's call frame information (CFI)",
    }, {
        .long_name = "unwind-memory",
        .arg = KD_ARG_REQUIRED, .metavar = "MIB",
        KD_UINT(unwind_mib, 1, KD_MAX_UNWIND_MIB),
        .help = "The most kernel memory the tables that unwind\n"
                "user stacks may take, in MiB (1 to 4096, default\n"
                "64)",
    }, {
        .long_name = "trace-dir",
        .arg = KD_ARG_REQUIRED, .metavar = "DIR",
        KD_STRING(trace_dir), .watch_only = true,
        .help = "Write, for each long poll interval reported, a\n"
                "trace that ui.perfetto.dev opens into DIR: the\n"
                "thread's states, syscalls, wake-ups and history",
    }, {
        .long_name = "trace-history",
        .arg = KD_ARG_REQUIRED, .metavar = "N", .watch_only = true,
        .apply = kd_apply_pages,
        .field = KD_FIELD(trace_history, unsigned int),
        .min = KD_MIN_TRACE_HISTORY, .max = KD_MAX_TRACE_HISTORY,
        .help = "With --trace-dir: keep the last N records of each\n"
                "thread in the kernel (16 to 4096, rounded up to a\n"
                "power of 2), default 256",
    }, {
        .long_name = "trace-max-mib",
        .arg = KD_ARG_REQUIRED, .metavar = "MIB",
        KD_UINT(trace_max_mib, 1, KD_MAX_TRACE_MIB), .watch_only = true,
        .help = "With --trace-dir: remove the oldest traces to keep\n"
                "them under MIB MiB, default 64",
    }, {
        .long_name = "trace-max-files",
        .arg = KD_ARG_REQUIRED, .metavar = "N",
        KD_UINT(trace_max_files, 1, KD_MAX_TRACE_FILES), .watch_only = true,
        .help = "With --trace-dir: remove the oldest traces to keep\n"
                "N at most, default 256",
    }, {
        .long_name = "on-long-poll",
        .arg = KD_ARG_REQUIRED, .metavar = "CMD",
        KD_STRING(on_long_poll), .watch_only = true,
        .help = "Run CMD with /bin/sh -c when an interval is\n"
                "reported, its facts in KD_* environment variables;\n"
                "one at a time; see kernel_delay(8)",
    }, {
        .long_name = "on-long-poll-period",
        .arg = KD_ARG_REQUIRED, .metavar = "DURATION",
        KD_DURATION_NS(on_long_poll_period_ns, 0), .watch_only = true,
        .help = "Start --on-long-poll's CMD at most once per\n"
                "DURATION (ns, or with a unit: 30s), default 60s",
    }, {
        .long_name = "version",
        .apply = kd_apply_version, KD_SETS(version),
        .help = "show the program's version, the libbcc and libbpf\n"
                "it runs with and the kernel features it finds\n"
                "(BTF, kprobes, ring buffer, headers), and exit",
    },
};

#define KD_N_OPTIONS KD_ARRAY_SIZE(kd_option_defs)

static const struct kd_option_table kd_option_table = {
    kd_option_defs, KD_N_OPTIONS,
};

const struct kd_option_table *
kd_options_table(void)
{
    return &kd_option_table;
}

static int
kd_arg_error(FILE *err, const struct kd_option_def *def, const char *why)
{
    return kd_usage_arg_error(&kd_option_table, err, def, why);
}

static int
kd_get_uint(FILE *err, const struct kd_option_def *def, const char *arg,
            uint64_t min, uint64_t max, uint64_t *out)
{
    return kd_usage_get_uint(&kd_option_table, err, def, arg, min, max, out);
}

struct kd_needs
kd_options_needs(const struct kd_options *o)
{
    struct kd_needs needs = {
        .start_trigger = o->start_trigger != NULL,
        .stop_trigger = o->stop_trigger != NULL,
        .syscall_events = o->syscall_events,
        .syscall_events_ns = o->syscall_events_ns,
        .wall_clock = o->wall_clock,
        .stacks = o->syscall_events && o->stack_trace_size > 0,
        .histograms = o->histogram,
        .summary = o->summary,
        .upcalls = !o->skip_upcall_stats && !o->long_poll,
    };

    needs.gaps = o->long_poll;
    needs.profile = o->profile_hz > 0 && o->stack_trace_size > 0;
    needs.profile_hz = needs.profile ? o->profile_hz : 0;
    needs.blocked = o->off_cpu && o->stack_trace_size > 0;
    needs.unwind = (needs.stacks || needs.profile || needs.blocked)
                   && !o->frame_pointers;
    needs.trace = o->long_poll && o->trace_dir;
    needs.trace_history = needs.trace ? o->trace_history : 0;
    needs.stats = !o->long_poll;
    /* --off-cpu follows the sleeps the accounts see. */
    needs.acct = o->long_poll || o->summary || o->json || needs.blocked;
    needs.ran = needs.acct && needs.stats;
    needs.ring_buffer = needs.start_trigger || needs.stop_trigger
                        || needs.syscall_events || needs.gaps;
    return needs;
}

unsigned int
kd_next_power_of_two(unsigned int n)
{
    unsigned int p = 1;

    if (n > 1u << 31) {
        return 1u << 31;
    }
    while (p < n) {
        p *= 2;
    }
    return p;
}

/* Where option 'def' keeps its value in 'o'. */
static void *
kd_option_field(struct kd_options *o, const struct kd_option_def *def)
{
    return (char *) o + def->field;
}

/* -D [DEBUG]: without a value, 0x3f; with one, a number up to 0xff, as
 * the reference's argparse takes it. */
static int
kd_apply_debug(struct kd_options *o, const struct kd_option_def *def,
               const char *arg, FILE *out KD_UNUSED, FILE *err)
{
    uint64_t u = def->bare;
    int status = -1;

    if (arg && kd_parse_u64(arg, 0, UINT64_MAX, &u) == EINVAL) {
        char why[128];

        snprintf(why, sizeof why, "invalid int value: '%s'", arg);
        return kd_arg_error(err, def, why);
    }
    if (arg) {
        status = kd_get_uint(err, def, arg, def->min, def->max, &u);
    }
    *(unsigned int *) kd_option_field(o, def) = u;
    return status;
}

/* --thread REGEX: a POSIX extended regular expression, checked here so
 * that a bad one is a usage error. */
static int
kd_apply_thread(struct kd_options *o, const struct kd_option_def *def,
                const char *arg, FILE *out KD_UNUSED, FILE *err)
{
    regex_t re;
    int rc;

    if (kd_regex_repeats_repetition(arg)) {
        return kd_arg_error(err, def, "invalid regular expression: a "
                            "repetition operator after another one");
    }
    rc = regcomp(&re, arg, REG_EXTENDED | REG_NOSUB);

    if (rc) {
        char msg[256], why[400];

        regerror(rc, &re, msg, sizeof msg);
        snprintf(why, sizeof why, "invalid regular expression: %s", msg);
        return kd_arg_error(err, def, why);
    }
    regfree(&re);
    *(const char **) kd_option_field(o, def) = arg;
    return -1;
}

/* --metrics ADDR:PORT: checked here, bound at start-up. */
static int
kd_apply_metrics(struct kd_options *o, const struct kd_option_def *def,
                 const char *arg, FILE *out KD_UNUSED, FILE *err)
{
    uint16_t port;
    char *host;

    if (kd_http_parse_address(arg, &host, &port)) {
        return kd_arg_error(err, def, "expected ADDR:PORT (127.0.0.1:9478, "
                            "[::1]:9478, or :9478 for every address)");
    }
    free(host);
    *(const char **) kd_option_field(o, def) = arg;
    return -1;
}

/* "--tid 1,2,3": each a thread id; the list replaces an earlier one. */
static int
kd_apply_tids(struct kd_options *o, const struct kd_option_def *def,
              const char *arg, FILE *out KD_UNUSED, FILE *err)
{
    char *copy = kd_xstrdup(arg);
    char *save = NULL;
    unsigned int *tids = NULL;
    size_t n = 0;
    int status = -1;

    if (!*arg || arg[strlen(arg) - 1] == ',' || arg[0] == ','
        || strstr(arg, ",,")) {
        status = kd_arg_error(err, def, "must be a comma-separated list of "
                              "thread ids");
        goto out;
    }
    for (char *t = strtok_r(copy, ",", &save); t;
         t = strtok_r(NULL, ",", &save)) {
        uint64_t u;

        if (n == KD_MAX_TIDS) {
            char why[64];

            snprintf(why, sizeof why, "at most %d thread ids", KD_MAX_TIDS);
            status = kd_arg_error(err, def, why);
            goto out;
        }
        status = kd_get_uint(err, def, t, def->min, def->max, &u);
        if (status >= 0) {
            goto out;
        }
        tids = kd_xreallocarray(tids, n + 1, sizeof *tids);
        tids[n++] = u;
    }
    free(o->tids);
    o->tids = tids;
    o->n_tids = n;
    tids = NULL;

out:
    free(tids);
    free(copy);
    return status;
}

void
kd_options_destroy(struct kd_options *o)
{
    free(o->tids);
    o->tids = NULL;
    o->n_tids = 0;
}

static int
kd_apply_help(struct kd_options *o KD_UNUSED,
              const struct kd_option_def *def KD_UNUSED,
              const char *arg KD_UNUSED, FILE *out, FILE *err KD_UNUSED)
{
    kd_usage_put_help(&kd_option_table, out);
    return 0;
}

static int
kd_apply_version(struct kd_options *o KD_UNUSED,
                 const struct kd_option_def *def KD_UNUSED,
                 const char *arg KD_UNUSED, FILE *out,
                 FILE *err KD_UNUSED)
{
    fprintf(out, "kernel_delay %s\n", KD_VERSION);
    return 0;
}

/* An unsigned int within [def->min, def->max]. */
static int
kd_apply_uint(struct kd_options *o, const struct kd_option_def *def,
              const char *arg, FILE *out KD_UNUSED, FILE *err)
{
    uint64_t u = 0;
    int status = kd_get_uint(err, def, arg, def->min, def->max, &u);

    *(unsigned int *) kd_option_field(o, def) = u;
    return status;
}

/* A page count, rounded up to a power of two as the reference does. */
static int
kd_apply_pages(struct kd_options *o, const struct kd_option_def *def,
               const char *arg, FILE *out, FILE *err)
{
    int status = kd_apply_uint(o, def, arg, out, err);
    unsigned int *pages = kd_option_field(o, def);

    *pages = kd_next_power_of_two(*pages);
    return status;
}

/* A duration in nanoseconds, def->bare when the value is left out. */
static int
kd_apply_duration_ns(struct kd_options *o, const struct kd_option_def *def,
                     const char *arg, FILE *out KD_UNUSED, FILE *err)
{
    uint64_t u = def->bare;
    int status = -1;

    if (arg) {
        status = kd_usage_get_duration_ns(&kd_option_table, err, def, arg,
                                          def->max, &u);
    }
    *(uint64_t *) kd_option_field(o, def) = u;
    return status;
}

static int
kd_apply_seconds(struct kd_options *o, const struct kd_option_def *def,
                 const char *arg, FILE *out KD_UNUSED, FILE *err)
{
    return kd_usage_get_seconds(&kd_option_table, err, def, arg,
                                def->min_seconds, KD_MAX_SECONDS,
                                kd_option_field(o, def));
}

static int
kd_apply_string(struct kd_options *o, const struct kd_option_def *def,
                const char *arg, FILE *out KD_UNUSED, FILE *err KD_UNUSED)
{
    *(const char **) kd_option_field(o, def) = arg;
    return -1;
}

/* Option 'def' given, with value 'arg' (NULL if none). */
static int
kd_option_apply(struct kd_options *o, const struct kd_option_def *def,
                const char *arg, FILE *out, FILE *err)
{
    if (def->sets_flag) {
        *(bool *) ((char *) o + def->flag) = true;
    }
    return def->apply ? def->apply(o, def, arg, out, err) : -1;
}

/* The option of long name 'name', which must exist. */
static const struct kd_option_def *
kd_find_def(const char *name)
{
    for (size_t i = 0; i < KD_N_OPTIONS; i++) {
        if (!strcmp(kd_option_defs[i].long_name, name)) {
            return &kd_option_defs[i];
        }
    }
    abort();
}

/* The value of option 'def', given at argv[*i]: '*arg' if it was attached,
 * else the next word if the option takes one and that word does not look
 * like an option (then '*i' moves to it).  Returns -1, or an exit status
 * after a usage error (reported). */
static int
kd_option_value(const struct kd_option_def *def, int argc, char *argv[],
                int *i, const char **arg, FILE *err)
{
    if (def->arg == KD_ARG_NONE && *arg) {
        char why[128];

        snprintf(why, sizeof why, "ignored explicit argument '%s'", *arg);
        return kd_arg_error(err, def, why);
    }
    if (!*arg && def->arg != KD_ARG_NONE && *i + 1 < argc
        && !kd_usage_looks_like_option(argv[*i + 1])
        && strcmp(argv[*i + 1], "--")) {
        *arg = argv[++*i];
    }
    if (!*arg && def->arg == KD_ARG_REQUIRED) {
        return kd_arg_error(err, def, "expected one argument");
    }
    return -1;
}

/* Like argparse, words that are no option, or no option's value, are
 * collected and reported together once all options are parsed. */
static void
kd_add_extra(struct kd_ds *extras, const char *word)
{
    kd_ds_put_format(extras, "%s%s", extras->length ? " " : "", word);
}

/* As argparse reports two options of a mutually exclusive group: an
 * option that shapes samples and one for which there are none
 * (--long-poll-events); the one given later, "not allowed with" the one
 * given first.  'given_at' holds each option's position on the command
 * line, 0 when it is not given. */
static int
kd_check_conflicts(const int given_at[KD_N_OPTIONS], FILE *err)
{
    size_t none = KD_N_OPTIONS;

    for (size_t i = 0; i < KD_N_OPTIONS; i++) {
        if (kd_option_defs[i].no_samples && given_at[i]) {
            none = i;
            break;
        }
    }
    for (size_t i = 0; i < KD_N_OPTIONS; i++) {
        const struct kd_option_def *def = &kd_option_defs[i];

        if (def->watch_only && given_at[i] && none == KD_N_OPTIONS) {
            return kd_arg_error(err, def, "requires --long-poll-events");
        }
        for (size_t j = 0; def->follows_name && given_at[i]
                           && j < KD_N_OPTIONS; j++) {
            if (kd_option_defs[j].one_process && given_at[j]) {
                return kd_usage_not_allowed(&kd_option_table, err, def,
                                            &kd_option_defs[j]);
            }
        }
    }
    if (none == KD_N_OPTIONS) {
        return -1;
    }
    for (size_t i = 0; i < KD_N_OPTIONS; i++) {
        bool earlier = given_at[i] < given_at[none];

        if (kd_option_defs[i].samples && given_at[i]) {
            return kd_usage_not_allowed(&kd_option_table, err,
                                        &kd_option_defs[earlier ? none : i],
                                        &kd_option_defs[earlier ? i : none]);
        }
    }
    return -1;
}

/* The options that mean something only with another one: "argument
 * --trace-history: requires --trace-dir". */
static int
kd_check_requires(const int given_at[KD_N_OPTIONS], FILE *err)
{
    static const char *const requires[][2] = {
        { "trace-history", "trace-dir" },
        { "trace-max-mib", "trace-dir" },
        { "trace-max-files", "trace-dir" },
        { "on-long-poll-period", "on-long-poll" },
        { "metrics-tasks", "metrics" },
    };

    for (size_t i = 0; i < KD_ARRAY_SIZE(requires); i++) {
        const struct kd_option_def *a = kd_find_def(requires[i][0]);
        const struct kd_option_def *b = kd_find_def(requires[i][1]);
        char why[64];

        if (given_at[a - kd_option_defs] && !given_at[b - kd_option_defs]) {
            snprintf(why, sizeof why, "requires --%s", b->long_name);
            return kd_arg_error(err, a, why);
        }
    }
    return -1;
}

int
kd_options_parse(struct kd_options *options, int argc, char *argv[],
                 FILE *out, FILE *err)
{
    struct kd_ds extras = KD_DS_EMPTY_INITIALIZER;
    struct kd_ds hints = KD_DS_EMPTY_INITIALIZER;
    int given_at[KD_N_OPTIONS] = { 0 };
    int status = -1;

    *options = kd_options_defaults;
    for (int i = 1; i < argc && status < 0; i++) {
        const struct kd_option_def *def;
        const char *word = argv[i];
        const char *arg;

        if (!strcmp(word, "--")) {
            while (++i < argc) {
                kd_add_extra(&extras, argv[i]);
            }
            break;
        } else if (!kd_usage_looks_like_option(word)) {
            kd_add_extra(&extras, word);
            continue;
        }
        def = kd_usage_find_option(&kd_option_table, word, &arg, err,
                                  &status);
        if (status >= 0) {
            break;
        } else if (!def) {
            kd_add_extra(&extras, word);
            kd_usage_put_suggestion(&kd_option_table, &hints, word);
            continue;
        }
        status = kd_option_value(def, argc, argv, &i, &arg, err);
        if (status >= 0) {
            break;
        }
        if (!given_at[def - kd_option_defs]) {
            given_at[def - kd_option_defs] = i;
        }
        status = kd_option_apply(options, def, arg, out, err);
    }
    if (status < 0) {
        status = kd_check_conflicts(given_at, err);
    }
    if (status < 0 && options->folded && !options->profile_hz
        && !options->off_cpu) {
        status = kd_arg_error(err, kd_find_def("folded"),
                              "requires --profile-hz or --off-cpu");
    }
    if (status < 0) {
        status = kd_check_requires(given_at, err);
    }
    if (status < 0 && !options->node_name) {
        const char *node = getenv("KD_NODE_NAME");

        options->node_name = node && *node ? node : NULL;
    }

    if (status < 0 && extras.length) {
        status = kd_usage_error(&kd_option_table, err,
                                "unrecognized arguments: %s",
                                kd_ds_cstr(&extras));
        fputs(kd_ds_cstr(&hints), err);
    }
    kd_ds_destroy(&extras);
    kd_ds_destroy(&hints);
    if (status >= 0) {
        /* The caller exits at once: leave nothing to free. */
        kd_options_destroy(options);
    }
    return status;
}
