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
};

enum kd_option_arg {
    KD_ARG_NONE,
    KD_ARG_REQUIRED,
    KD_ARG_OPTIONAL,            /* The reference's nargs="?": takes the next
                                 * word when it does not look like an
                                 * option. */
};

struct kd_option_def;

/* Takes the value 'arg' (NULL if there is none) of option 'def' into 'o'.
 * Returns -1 to go on, else the exit status (0 after --help, 2 after a
 * usage error, reported on 'err'). */
typedef int kd_option_apply_fn(struct kd_options *o,
                               const struct kd_option_def *def,
                               const char *arg, FILE *out, FILE *err);

/* One option.  Giving it sets the bool 'flag' of struct kd_options when
 * 'sets_flag', then calls 'apply' (if any) on its value. */
struct kd_option_def {
    char short_name;            /* 0 if none. */
    const char *long_name;
    enum kd_option_arg arg;
    const char *metavar;
    bool ref;                   /* One of the reference's options. */
    const char *help;           /* --help's text, its lines as shown. */

    kd_option_apply_fn *apply;
    size_t field;               /* Offset of apply's field in kd_options. */
    uint64_t min, max;          /* Range of an integer value. */
    double min_seconds;         /* Least value in seconds. */
    uint64_t bare;              /* Value when an OPTIONAL one is missing. */
    bool sets_flag;
    size_t flag;                /* Offset of the bool it sets. */

    /* Shapes samples: not with an option that has 'no_samples'
     * (--long-poll-events), as argparse's mutually exclusive groups. */
    bool samples;
    bool no_samples;

    /* Only with an option that has 'no_samples' (--long-poll-events). */
    bool watch_only;

    /* Not with one that has 'one_process': it follows ovs-vswitchd by
     * name, across restarts. */
    bool follows_name;

    /* Names one process, or threads of one (-p, --tid): a restarted
     * ovs-vswitchd has new IDs. */
    bool one_process;
};

static kd_option_apply_fn kd_apply_help, kd_apply_version, kd_apply_debug,
    kd_apply_uint, kd_apply_pages, kd_apply_duration_ns, kd_apply_seconds,
    kd_apply_string, kd_apply_thread, kd_apply_tids;

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
        .long_name = "version",
        .apply = kd_apply_version, KD_SETS(version),
        .help = "show the program's version, the libbcc and libbpf\n"
                "it runs with and the kernel features it finds\n"
                "(BTF, kprobes, ring buffer, headers), and exit",
    },
};

#define KD_N_OPTIONS KD_ARRAY_SIZE(kd_option_defs)

/* The usage and --help, laid out as Python 3.11's argparse does on an
 * 80-column terminal. */
#define KD_USAGE_PREFIX "usage: kernel_delay"
#define KD_HELP_WIDTH 78            /* Columns, as argparse: 80 - 2. */
#define KD_HELP_COLUMN 24           /* Where the options' help starts. */

static const char kd_help_intro[] =
"\n"
"Reports, per thread of one process (by default the running ovs-vswitchd),\n"
"what the kernel did to it over a sample: syscall counts and latencies,\n"
"poll-to-poll gaps, time on CPU, waiting in the run queue and stopped, and\n"
"hard and soft interrupt time.  See kernel_delay(8).\n"
"\n"
"Durations (DURATION_NS, SECONDS) take a unit, ns, us, ms or s, right after\n"
"the number: 50ms, 1.5s.  A plain number keeps the option's own unit:\n"
"nanoseconds for DURATION_NS (1e6 is 1 ms), seconds for SECONDS.\n"
"\n"
"options:\n";

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

int
kd_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
    const char *p = s;
    uint64_t value = 0;

    if (*p == '+') {
        p++;
    } else if (*p == '-' && isdigit((unsigned char) p[1])) {
        /* A negative number: a number, but out of any unsigned range,
         * unless it is zero. */
        bool zero = true;

        for (p++; isdigit((unsigned char) *p); p++) {
            zero = zero && *p == '0';
        }
        if (*p) {
            return EINVAL;
        }
        if (!zero || min > 0) {
            return ERANGE;
        }
        *out = 0;
        return 0;
    }
    if (!isdigit((unsigned char) *p)) {
        return EINVAL;
    }
    for (; isdigit((unsigned char) *p); p++) {
        unsigned int digit = *p - '0';

        if (value > (UINT64_MAX - digit) / 10) {
            /* Still check that the rest is a number. */
            while (isdigit((unsigned char) *p)) {
                p++;
            }
            return *p ? EINVAL : ERANGE;
        }
        value = value * 10 + digit;
    }
    if (*p) {
        return EINVAL;
    }
    if (value < min || value > max) {
        return ERANGE;
    }
    *out = value;
    return 0;
}

int
kd_parse_seconds(const char *s, double min, double max, double *out)
{
    char *end;
    double value;

    /* strtod() also takes hexadecimal, "inf" and "nan": accept plain
     * decimal notation only. */
    for (const char *p = s; *p; p++) {
        if (!isdigit((unsigned char) *p) && !strchr("+-.eE", *p)) {
            return EINVAL;
        }
    }
    errno = 0;
    value = strtod(s, &end);
    if (end == s || *end) {
        return EINVAL;
    }
    /* strtod() reports an underflow (1e-400) as ERANGE: that is 0. */
    if (errno == ERANGE && fabs(value) <= DBL_MIN) {
        value = 0;
    } else if (errno == ERANGE) {
        return ERANGE;
    }
    if (!isfinite(value) || value < min || value > max) {
        return ERANGE;
    }
    *out = value;
    return 0;
}

/* The units of a duration, as powers of ten of a nanosecond. */
static const struct {
    const char *name;
    int exp10;
} kd_duration_units[] = {
    { "ns", 0 }, { "us", 3 }, { "ms", 6 }, { "s", 9 },
};

bool
kd_duration_has_unit(const char *s)
{
    size_t len = strlen(s);

    return len && s[len - 1] == 's';
}

/* The number of a duration, as scanned: its digits (the fraction's
 * included, the point skipped) from 'digits' to 'end', and the power of
 * ten they are to be multiplied by, in nanoseconds. */
struct kd_duration_number {
    bool negative;
    const char *digits, *end;
    long exp10;
};

/* Scans 's' into 'n'.  Returns 0 or EINVAL. */
static int
kd_duration_scan(const char *s, struct kd_duration_number *n)
{
    const char *p = s;
    size_t n_int, n_frac = 0;
    long exp = 0;

    n->negative = *p == '-';
    p += *p == '-' || *p == '+';
    n->digits = p;
    n_int = strspn(p, "0123456789");
    p += n_int;
    if (*p == '.') {
        n_frac = strspn(p + 1, "0123456789");
        p += 1 + n_frac;
    }
    n->end = p;
    if (!n_int && !n_frac) {
        return EINVAL;
    }
    if (*p == 'e' || *p == 'E') {
        bool minus = p[1] == '-';

        p += 1 + (p[1] == '-' || p[1] == '+');
        if (!isdigit((unsigned char) *p)) {
            return EINVAL;
        }
        for (; isdigit((unsigned char) *p); p++) {
            /* Far beyond any duration either way: stop growing. */
            exp = exp < 100000 ? exp * 10 + (*p - '0') : exp;
        }
        exp = minus ? -exp : exp;
    }
    n->exp10 = exp - (long) n_frac;
    if (*p) {
        size_t i;

        for (i = 0; i < KD_ARRAY_SIZE(kd_duration_units); i++) {
            if (!strcmp(p, kd_duration_units[i].name)) {
                n->exp10 += kd_duration_units[i].exp10;
                break;
            }
        }
        if (i == KD_ARRAY_SIZE(kd_duration_units)) {
            return EINVAL;
        }
    }
    return 0;
}

int
kd_parse_duration_ns(const char *s, uint64_t max, uint64_t *out)
{
    struct kd_duration_number n;
    const char *first = NULL, *last = NULL;
    uint64_t value = 0;
    long exp10;
    int error = kd_duration_scan(s, &n);

    if (error) {
        return error;
    }
    /* The significant digits, from 'first' to 'last', leading and
     * trailing zeros left out (those trailing count in the exponent). */
    exp10 = n.exp10;
    for (const char *p = n.digits; p < n.end; p++) {
        if (*p != '.' && *p != '0') {
            first = first ? first : p;
            last = p;
        }
    }
    if (!first) {
        *out = 0;
        return 0;
    }
    if (n.negative) {
        return ERANGE;
    }
    for (const char *p = last + 1; p < n.end; p++) {
        exp10 += *p != '.';
    }
    if (exp10 < 0) {
        return EDOM;
    }
    for (const char *p = first; p <= last; p++) {
        if (*p == '.') {
            continue;
        } else if (value > (UINT64_MAX - (*p - '0')) / 10) {
            return ERANGE;
        }
        value = value * 10 + (*p - '0');
    }
    for (; exp10 > 0; exp10--) {
        if (value > UINT64_MAX / 10) {
            return ERANGE;
        }
        value *= 10;
    }
    if (value > max) {
        return ERANGE;
    }
    *out = value;
    return 0;
}

/* The option as argparse names it in errors: "-p/--pid". */
static void
kd_option_display(const struct kd_option_def *def, char *buf, size_t size)
{
    if (def->short_name) {
        snprintf(buf, size, "-%c/--%s", def->short_name, def->long_name);
    } else {
        snprintf(buf, size, "--%s", def->long_name);
    }
}

/* Option 'def' as the usage and --help show it, by its short name if
 * 'short_name', else by its long one: "-p VSWITCHD_PID", "--debug
 * [DEBUG]". */
static void
kd_put_invocation(struct kd_ds *ds, const struct kd_option_def *def,
                  bool short_name)
{
    if (short_name) {
        kd_ds_put_format(ds, "-%c", def->short_name);
    } else {
        kd_ds_put_format(ds, "--%s", def->long_name);
    }
    if (def->arg == KD_ARG_REQUIRED) {
        kd_ds_put_format(ds, " %s", def->metavar);
    } else if (def->arg == KD_ARG_OPTIONAL) {
        kd_ds_put_format(ds, " [%s]", def->metavar);
    }
}

/* "usage: kernel_delay [-h] ...": each option by its first name, the
 * lines filled up to KD_HELP_WIDTH columns. */
static void
kd_put_usage(FILE *stream)
{
    const size_t indent = strlen(KD_USAGE_PREFIX);
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    size_t line = indent;

    kd_ds_put_cstr(&ds, KD_USAGE_PREFIX);
    for (size_t i = 0; i < KD_N_OPTIONS; i++) {
        const struct kd_option_def *def = &kd_option_defs[i];
        struct kd_ds part = KD_DS_EMPTY_INITIALIZER;

        kd_ds_put_char(&part, '[');
        kd_put_invocation(&part, def, def->short_name);
        kd_ds_put_char(&part, ']');
        if (line + 1 + part.length > KD_HELP_WIDTH) {
            kd_ds_put_char(&ds, '\n');
            kd_ds_put_char_multiple(&ds, ' ', indent);
            line = indent;
        }
        kd_ds_put_format(&ds, " %s", kd_ds_cstr(&part));
        line += 1 + part.length;
        kd_ds_destroy(&part);
    }
    kd_ds_put_char(&ds, '\n');
    fputs(kd_ds_cstr(&ds), stream);
    kd_ds_destroy(&ds);
}

/* --help: the usage, what the program does, then each option with its
 * help from column KD_HELP_COLUMN, on the option's line if it fits. */
static void
kd_put_help(FILE *stream)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    kd_put_usage(stream);
    kd_ds_put_cstr(&ds, kd_help_intro);
    for (size_t i = 0; i < KD_N_OPTIONS; i++) {
        const struct kd_option_def *def = &kd_option_defs[i];
        size_t start = ds.length;
        const char *help = def->help;

        kd_ds_put_cstr(&ds, "  ");
        if (def->short_name) {
            kd_put_invocation(&ds, def, true);
            kd_ds_put_cstr(&ds, ", ");
        }
        kd_put_invocation(&ds, def, false);
        if (ds.length - start <= KD_HELP_COLUMN - 2) {
            kd_ds_put_char_multiple(&ds, ' ',
                                    KD_HELP_COLUMN - (ds.length - start));
        } else {
            kd_ds_put_char(&ds, '\n');
            kd_ds_put_char_multiple(&ds, ' ', KD_HELP_COLUMN);
        }
        for (;;) {
            size_t len = strcspn(help, "\n");

            kd_ds_put_buffer(&ds, help, len);
            kd_ds_put_char(&ds, '\n');
            if (!help[len]) {
                break;
            }
            help += len + 1;
            kd_ds_put_char_multiple(&ds, ' ', KD_HELP_COLUMN);
        }
    }
    fputs(kd_ds_cstr(&ds), stream);
    kd_ds_destroy(&ds);
}

static int
kd_usage_error(FILE *err, const char *format, ...)
    KD_PRINTF_FORMAT(2, 3);

static int
kd_usage_error(FILE *err, const char *format, ...)
{
    va_list args;

    kd_put_usage(err);
    fputs("kernel_delay: error: ", err);
    va_start(args, format);
    vfprintf(err, format, args);
    va_end(args);
    fputc('\n', err);
    return 2;
}

static int
kd_arg_error(FILE *err, const struct kd_option_def *def, const char *why)
{
    char name[64];

    kd_option_display(def, name, sizeof name);
    return kd_usage_error(err, "argument %s: %s", name, why);
}

/* An unsigned integer option, with the reference's messages for what it
 * rejects and ours for what it let through. */
static int
kd_get_uint(FILE *err, const struct kd_option_def *def, const char *arg,
            uint64_t min, uint64_t max, uint64_t *out)
{
    bool zero = arg[strspn(arg, "+-")] && !arg[strspn(arg, "+-0")];
    uint64_t value;
    char why[128];

    switch (kd_parse_u64(arg, min, max, out)) {
    case 0:
        return -1;
    case EINVAL:
        return kd_arg_error(err, def, "must be an integer");
    default:
        if (zero && min == 1) {
            return kd_arg_error(err, def, "must be nonzero");
        }
        if (arg[0] == '-' && !zero) {
            return kd_arg_error(err, def, "must be positive");
        }
        if (!kd_parse_u64(arg, 0, UINT64_MAX, &value) && value < min) {
            snprintf(why, sizeof why, "must be at least %" PRIu64, min);
        } else {
            snprintf(why, sizeof why, "must be at most %" PRIu64, max);
        }
        return kd_arg_error(err, def, why);
    }
}

/* Why duration 'arg' is not a whole number of nanoseconds. */
static int
kd_duration_fraction_error(FILE *err, const struct kd_option_def *def,
                           const char *arg)
{
    char why[160];

    snprintf(why, sizeof why, "invalid duration '%.40s': not a whole "
             "number of nanoseconds", arg);
    return kd_arg_error(err, def, why);
}

/* A duration in nanoseconds, with the reference's messages for what its
 * unsigned_int() rejects and ours for the units it does not know. */
static int
kd_get_duration_ns(FILE *err, const struct kd_option_def *def,
                   const char *arg, uint64_t max, uint64_t *out)
{
    char why[160];

    switch (kd_parse_duration_ns(arg, max, out)) {
    case 0:
        return -1;
    case EDOM:
        return kd_duration_fraction_error(err, def, arg);
    case EINVAL:
        if (!isdigit((unsigned char) arg[strspn(arg, "+-.")])) {
            return kd_arg_error(err, def, "must be an integer");
        }
        snprintf(why, sizeof why, "invalid duration '%.40s': a number "
                 "then, with no space, ns, us, ms or s (50ms, 1.5s, 1e6)",
                 arg);
        return kd_arg_error(err, def, why);
    default:
        if (arg[0] == '-') {
            return kd_arg_error(err, def, "must be positive");
        }
        snprintf(why, sizeof why, "must be at most %" PRIu64, max);
        return kd_arg_error(err, def, why);
    }
}

/* A duration in seconds: a plain number as the reference's float() takes
 * it, or one with a unit (kd_parse_duration_ns()). */
static int
kd_parse_seconds_or_unit(const char *arg, double min, double *out)
{
    uint64_t ns;
    int error;

    if (!kd_duration_has_unit(arg)) {
        return kd_parse_seconds(arg, min, KD_MAX_SECONDS, out);
    }
    error = kd_parse_duration_ns(arg, KD_MAX_SECONDS * UINT64_C(1000000000),
                                 &ns);
    if (error) {
        return error;
    } else if (ns / 1e9 < min) {
        return ERANGE;
    }
    *out = ns / 1e9;
    return 0;
}

static int
kd_get_seconds(FILE *err, const struct kd_option_def *def, const char *arg,
               double min, double *out)
{
    char why[128];

    switch (kd_parse_seconds_or_unit(arg, min, out)) {
    case EDOM:
        return kd_duration_fraction_error(err, def, arg);
    case 0:
        return -1;
    case EINVAL:
        snprintf(why, sizeof why, "invalid float value: '%s'", arg);
        return kd_arg_error(err, def, why);
    default:
        snprintf(why, sizeof why, "must be %s and at most %d seconds",
                 min > 0 ? "greater than 0" : "0 or more", KD_MAX_SECONDS);
        return kd_arg_error(err, def, why);
    }
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

/* The end of the bracket expression that starts at 'p' ('['), or NULL
 * when it does not end. */
static const char *
kd_regex_bracket_end(const char *p)
{
    p++;
    if (*p == '^') {
        p++;
    }
    if (*p == ']') {
        p++;
    }
    for (; *p && *p != ']'; p++) {
        if (*p == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
            char kind = p[1];

            for (p += 2; *p && !(*p == kind && p[1] == ']'); p++) {
                continue;
            }
            if (!*p) {
                return NULL;
            }
            p++;
        }
    }
    return *p ? p : NULL;
}

/* Whether ERE 're' has a repetition operator (*, +, ?, {...}) right after
 * another one.  POSIX leaves that undefined; glibc takes it, and compiles
 * a run of them ("a++++...", 150 characters) into gigabytes of memory. */
static bool
kd_regex_repeats_repetition(const char *re)
{
    bool after = false;

    for (const char *p = re; *p; p++) {
        bool rep = false;

        if (*p == '\\') {
            p += p[1] != '\0';
        } else if (*p == '[') {
            const char *end = kd_regex_bracket_end(p);

            if (!end) {
                return false;       /* regcomp() says what is wrong. */
            }
            p = end;
        } else if (*p == '{') {
            const char *end = strchr(p, '}');

            rep = true;
            p = end ? end : p;
        } else if (*p == '*' || *p == '+' || *p == '?') {
            rep = true;
        }
        if (rep && after) {
            return true;
        }
        after = rep;
    }
    return false;
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
    kd_put_help(out);
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
        status = kd_get_duration_ns(err, def, arg, def->max, &u);
    }
    *(uint64_t *) kd_option_field(o, def) = u;
    return status;
}

static int
kd_apply_seconds(struct kd_options *o, const struct kd_option_def *def,
                 const char *arg, FILE *out KD_UNUSED, FILE *err)
{
    return kd_get_seconds(err, def, arg, def->min_seconds,
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

/* argparse's test for a negative number, which is a value, not an option:
 * ^-\d+$ or ^-\d*\.\d+$. */
static bool
kd_is_negative_number(const char *s)
{
    const char *p = s + 1;
    size_t digits = strspn(p, "0123456789");

    if (s[0] != '-') {
        return false;
    }
    if (digits && !p[digits]) {
        return true;
    }
    p += digits;
    return p[0] == '.' && p[1] && !p[1 + strspn(p + 1, "0123456789")];
}

/* argparse takes a word as an option's argument unless it looks like an
 * option: it starts with '-', is not just "-", and is not a negative
 * number. */
static bool
kd_looks_like_option(const char *s)
{
    return s[0] == '-' && s[1] && !kd_is_negative_number(s);
}

/* Finds a long option by its name or, as argparse does, by an unambiguous
 * prefix of it.  A prefix that is ambiguous only because of our own
 * options means the one reference option it matches, so that every
 * abbreviation the reference accepts keeps its meaning ("--t" is still
 * --trigger-delta, "--h" still --help).  Returns NULL when there is none,
 * and then sets '*status' to an exit status if the name was ambiguous
 * (reporting it). */
static const struct kd_option_def *
kd_find_long(const char *name, size_t len, const char *word, FILE *err,
             int *status)
{
    const struct kd_option_def *found = NULL, *found_ref = NULL;
    struct kd_ds matches = KD_DS_EMPTY_INITIALIZER;
    int n = 0, n_ref = 0;

    for (size_t i = 0; i < KD_ARRAY_SIZE(kd_option_defs); i++) {
        const struct kd_option_def *def = &kd_option_defs[i];

        if (strlen(def->long_name) == len
            && !strncmp(def->long_name, name, len)) {
            kd_ds_destroy(&matches);
            return def;
        }
        if (!strncmp(def->long_name, name, len)) {
            kd_ds_put_format(&matches, "%s--%s", n ? ", " : "",
                             def->long_name);
            found = def;
            n++;
            if (def->ref) {
                found_ref = def;
                n_ref++;
            }
        }
    }
    if (n > 1 && n_ref == 1) {
        found = found_ref;
    } else if (n > 1) {
        *status = kd_usage_error(err, "ambiguous option: %s could match %s",
                                 word, kd_ds_cstr(&matches));
        found = NULL;
    }
    kd_ds_destroy(&matches);
    return found;
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

static const struct kd_option_def *
kd_find_short(char c)
{
    for (size_t i = 0; i < KD_ARRAY_SIZE(kd_option_defs); i++) {
        if (kd_option_defs[i].short_name == c) {
            return &kd_option_defs[i];
        }
    }
    return NULL;
}

/* The option that 'word' (which looks like one) names, and in '*arg' its
 * value if it is attached ("--pid=1", "-p1"), else NULL.  Returns NULL
 * when there is none, and then sets '*status' to an exit status if the
 * name was ambiguous (reporting it). */
static const struct kd_option_def *
kd_find_option(const char *word, const char **arg, FILE *err, int *status)
{
    if (word[1] == '-') {
        const char *name = word + 2;
        const char *eq = strchr(name, '=');
        size_t len = eq ? (size_t) (eq - name) : strlen(name);

        *arg = eq ? eq + 1 : NULL;
        return kd_find_long(name, len, word, err, status);
    }
    *arg = word[2] ? word + 2 + (word[2] == '=') : NULL;
    return kd_find_short(word[1]);
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
        && !kd_looks_like_option(argv[*i + 1])
        && strcmp(argv[*i + 1], "--")) {
        *arg = argv[++*i];
    }
    if (!*arg && def->arg == KD_ARG_REQUIRED) {
        return kd_arg_error(err, def, "expected one argument");
    }
    return -1;
}

#define KD_MIN(A, B) ((A) < (B) ? (A) : (B))

size_t
kd_edit_distance(const char *a, size_t a_len, const char *b, size_t b_len)
{
    size_t d[KD_EDIT_DISTANCE_MAX + 1][KD_EDIT_DISTANCE_MAX + 1];

    if (a_len > KD_EDIT_DISTANCE_MAX || b_len > KD_EDIT_DISTANCE_MAX) {
        return SIZE_MAX;
    }
    for (size_t i = 0; i <= a_len; i++) {
        for (size_t j = 0; j <= b_len; j++) {
            size_t best;

            if (!i || !j) {
                d[i][j] = i + j;
                continue;
            }
            best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            best = KD_MIN(best, d[i - 1][j] + 1);
            best = KD_MIN(best, d[i][j - 1] + 1);
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2]
                && a[i - 2] == b[j - 1]) {
                best = KD_MIN(best, d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    return d[a_len][b_len];
}

/* How far 'name' is from option 'def': from its whole name, or from the
 * start of it that 'name' may abbreviate ("--sampel" for "--sample-..."). */
static size_t
kd_option_distance(const char *name, size_t len,
                   const struct kd_option_def *def)
{
    size_t full = strlen(def->long_name);
    size_t d = kd_edit_distance(name, len, def->long_name, full);

    if (len < full) {
        d = KD_MIN(d, kd_edit_distance(name, len, def->long_name, len));
    }
    return d;
}

bool
kd_options_suggest(const char *name, size_t len, struct kd_ds *ds)
{
    size_t best = SIZE_MAX, n = 0, seen = 0;

    for (size_t i = 0; i < KD_N_OPTIONS; i++) {
        best = KD_MIN(best, kd_option_distance(name, len, &kd_option_defs[i]));
    }
    /* As git: close enough that a typo is likely (here at most two edits,
     * and fewer than half the name's letters). */
    if (best > 2 || 2 * best >= len) {
        return false;
    }
    for (size_t i = 0; i < KD_N_OPTIONS; i++) {
        n += kd_option_distance(name, len, &kd_option_defs[i]) == best;
    }
    for (size_t i = 0; i < KD_N_OPTIONS; i++) {
        if (kd_option_distance(name, len, &kd_option_defs[i]) == best) {
            seen++;
            kd_ds_put_format(ds, "%s--%s",
                             seen == 1 ? "" : seen == n ? " or " : ", ",
                             kd_option_defs[i].long_name);
        }
    }
    return true;
}

/* After "unrecognized arguments": for 'word', if it is a long option
 * misspelt, the closest ones. */
static void
kd_put_suggestion(struct kd_ds *hints, const char *word)
{
    struct kd_ds names = KD_DS_EMPTY_INITIALIZER;
    const char *name = word + 2;
    size_t len = strcspn(name, "=");

    if (!strncmp(word, "--", 2) && len
        && kd_options_suggest(name, len, &names)) {
        kd_ds_put_format(hints, "kernel_delay: unknown option --%.*s: did "
                         "you mean %s?\n", (int) len, name,
                         kd_ds_cstr(&names));
    }
    kd_ds_destroy(&names);
}

/* Like argparse, words that are no option, or no option's value, are
 * collected and reported together once all options are parsed. */
static void
kd_add_extra(struct kd_ds *extras, const char *word)
{
    kd_ds_put_format(extras, "%s%s", extras->length ? " " : "", word);
}

/* Option 'later' is not allowed with option 'first': argparse's message
 * for mutually exclusive options.  Returns the usage exit status. */
static int
kd_not_allowed(FILE *err, const struct kd_option_def *later,
               const struct kd_option_def *first)
{
    char name[64], why[96];

    kd_option_display(first, name, sizeof name);
    snprintf(why, sizeof why, "not allowed with argument %s", name);
    return kd_arg_error(err, later, why);
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
                return kd_not_allowed(err, def, &kd_option_defs[j]);
            }
        }
    }
    if (none == KD_N_OPTIONS) {
        return -1;
    }
    for (size_t i = 0; i < KD_N_OPTIONS; i++) {
        bool earlier = given_at[i] < given_at[none];

        if (kd_option_defs[i].samples && given_at[i]) {
            return kd_not_allowed(err, &kd_option_defs[earlier ? none : i],
                                  &kd_option_defs[earlier ? i : none]);
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
        } else if (!kd_looks_like_option(word)) {
            kd_add_extra(&extras, word);
            continue;
        }
        def = kd_find_option(word, &arg, err, &status);
        if (status >= 0) {
            break;
        } else if (!def) {
            kd_add_extra(&extras, word);
            kd_put_suggestion(&hints, word);
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
    if (status < 0 && !options->node_name) {
        const char *node = getenv("KD_NODE_NAME");

        options->node_name = node && *node ? node : NULL;
    }

    if (status < 0 && extras.length) {
        status = kd_usage_error(err, "unrecognized arguments: %s",
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
