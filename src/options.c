/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

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
};

/* The options, in the reference's order, then ours.  ARG is NONE,
 * REQUIRED or OPTIONAL (the reference's nargs="?", which takes the next
 * word when it does not look like an option).  REF is true for the
 * reference's own options. */
#define KD_OPTIONS                                                      \
    KD_OPTION(HELP, 'h', "help", NONE, NULL, true)                      \
    KD_OPTION(DEBUG, 'D', "debug", OPTIONAL, "DEBUG", true)             \
    KD_OPTION(PID, 'p', "pid", REQUIRED, "VSWITCHD_PID", true)          \
    KD_OPTION(SYSCALL_EVENTS, 's', "syscall-events", OPTIONAL,          \
              "DURATION_NS", true)                                      \
    KD_OPTION(BUFFER_PAGE_COUNT, 0, "buffer-page-count", REQUIRED,      \
              "NUMBER", true)                                           \
    KD_OPTION(SAMPLE_COUNT, 0, "sample-count", REQUIRED, "RUNS", true)  \
    KD_OPTION(SAMPLE_INTERVAL, 0, "sample-interval", REQUIRED,          \
              "SECONDS", true)                                          \
    KD_OPTION(SAMPLE_TIME, 0, "sample-time", REQUIRED, "SECONDS", true) \
    KD_OPTION(SKIP_SYSCALL_POLL_EVENTS, 0, "skip-syscall-poll-events", NONE, \
              NULL, true)                                               \
    KD_OPTION(SKIP_UPCALL_STATS, 0, "skip-upcall-stats", NONE,          \
              NULL, true)                                               \
    KD_OPTION(STACK_TRACE_SIZE, 0, "stack-trace-size", REQUIRED,        \
              "STACK_TRACE_SIZE", true)                                 \
    KD_OPTION(START_TRIGGER, 0, "start-trigger", REQUIRED,              \
              "TRIGGER", true)                                          \
    KD_OPTION(STOP_TRIGGER, 0, "stop-trigger", REQUIRED,                \
              "TRIGGER", true)                                          \
    KD_OPTION(TRIGGER_DELTA, 0, "trigger-delta", OPTIONAL,              \
              "DURATION_NS", true)                                      \
    KD_OPTION(MAX_THREADS, 0, "max-threads", REQUIRED, "NUMBER", false) \
    KD_OPTION(THREAD, 0, "thread", REQUIRED, "REGEX", false)            \
    KD_OPTION(TID, 0, "tid", REQUIRED, "TID[,TID...]", false)           \
    KD_OPTION(SUMMARY, 0, "summary", NONE, NULL, false)                 \
    KD_OPTION(HISTOGRAM, 0, "histogram", NONE, NULL, false)             \
    KD_OPTION(JSON, 0, "json", NONE, NULL, false)                       \
    KD_OPTION(LIST_PROBES, 0, "list-probes", NONE, NULL, false)         \
    KD_OPTION(LONG_POLL_EVENTS, 0, "long-poll-events", OPTIONAL,        \
              "DURATION_NS", false)                                     \
    KD_OPTION(VERSION, 0, "version", NONE, NULL, false)

enum kd_option_id {
#define KD_OPTION(ID, SHORT, LONG, ARG, METAVAR, REF) KD_OPT_##ID,
    KD_OPTIONS
#undef KD_OPTION
    KD_N_OPTIONS
};

enum kd_option_arg {
    KD_ARG_NONE,
    KD_ARG_REQUIRED,
    KD_ARG_OPTIONAL,
};

struct kd_option_def {
    enum kd_option_id id;
    char short_name;
    const char *long_name;
    enum kd_option_arg arg;
    const char *metavar;
    bool ref;               /* One of the reference's options. */
};

static const struct kd_option_def kd_option_defs[] = {
#define KD_OPTION(ID, SHORT, LONG, ARG, METAVAR, REF) \
    { KD_OPT_##ID, SHORT, LONG, KD_ARG_##ARG, METAVAR, REF },
    KD_OPTIONS
#undef KD_OPTION
};

static const char kd_usage[] =
"usage: kernel_delay [-h] [-D [DEBUG]] [-p VSWITCHD_PID] [-s [DURATION_NS]]\n"
"                    [--buffer-page-count NUMBER] [--sample-count RUNS]\n"
"                    [--sample-interval SECONDS] [--sample-time SECONDS]\n"
"                    [--skip-syscall-poll-events] [--skip-upcall-stats]\n"
"                    [--stack-trace-size STACK_TRACE_SIZE]\n"
"                    [--start-trigger TRIGGER] [--stop-trigger TRIGGER]\n"
"                    [--trigger-delta [DURATION_NS]] [--max-threads NUMBER]\n"
"                    [--thread REGEX] [--tid TID[,TID...]] [--summary]\n"
"                    [--histogram] [--json] [--list-probes]\n"
"                    [--long-poll-events [DURATION_NS]] [--version]\n";

static const char kd_help[] =
"\n"
"Reports, per thread of one process (by default the running ovs-vswitchd),\n"
"what the kernel did to it over a sample: syscall counts and latencies,\n"
"poll-to-poll gaps, time on CPU, waiting in the run queue and stopped, and\n"
"hard and soft interrupt time.  See kernel_delay(8).\n"
"\n"
"options:\n"
"  -h, --help            show this help message and exit\n"
"  -D [DEBUG], --debug [DEBUG]\n"
"                        Enable eBPF debugging\n"
"  -p VSWITCHD_PID, --pid VSWITCHD_PID\n"
"                        ovs-vswitch's PID\n"
"  -s [DURATION_NS], --syscall-events [DURATION_NS]\n"
"                        Record syscall events that take longer than\n"
"                        DURATION_NS. Omit the duration value to record all\n"
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
"                        Number of unique stack traces that can be recorded,\n"
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
"                        Stay attached and explain, as it ends, every gap\n"
"                        between two poll() calls of a thread longer than\n"
"                        DURATION_NS (default 1000000000): where the time\n"
"                        went and who ran instead; see kernel_delay(8)\n"
"  --version             show the program's version, the libbcc and libbpf\n"
"                        it runs with and the kernel features it finds\n"
"                        (BTF, kprobes, ring buffer, headers), and exit\n";

struct kd_needs
kd_options_needs(const struct kd_options *o)
{
    struct kd_needs needs = {
        .start_trigger = o->start_trigger != NULL,
        .stop_trigger = o->stop_trigger != NULL,
        .syscall_events = o->syscall_events,
        .stacks = o->syscall_events && o->stack_trace_size > 0,
        .histograms = o->histogram,
        .summary = o->summary,
    };

    needs.gaps = o->long_poll;
    needs.stats = !o->long_poll;
    needs.acct = o->long_poll || o->summary || o->json;
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

static int
kd_usage_error(FILE *err, const char *format, ...)
    KD_PRINTF_FORMAT(2, 3);

static int
kd_usage_error(FILE *err, const char *format, ...)
{
    va_list args;

    fputs(kd_usage, err);
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

static int
kd_get_seconds(FILE *err, const struct kd_option_def *def, const char *arg,
               double min, double *out)
{
    char why[128];

    switch (kd_parse_seconds(arg, min, KD_MAX_SECONDS, out)) {
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

/* -D [DEBUG]: without a value, 0x3f; with one, a number up to 0xff, as
 * the reference's argparse takes it. */
static int
kd_option_debug(struct kd_options *o, const struct kd_option_def *def,
                const char *arg, FILE *err)
{
    uint64_t u = 0x3f;
    int status = -1;

    if (arg && kd_parse_u64(arg, 0, UINT64_MAX, &u) == EINVAL) {
        char why[128];

        snprintf(why, sizeof why, "invalid int value: '%s'", arg);
        return kd_arg_error(err, def, why);
    }
    if (arg) {
        status = kd_get_uint(err, def, arg, 0, 0xff, &u);
    }
    o->debug = u;
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
kd_option_thread(struct kd_options *o, const struct kd_option_def *def,
                 const char *arg, FILE *err)
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
    o->thread_regex = arg;
    return -1;
}

/* The field of flag option 'id' (one that takes no value). */
static bool *
kd_option_flag(struct kd_options *o, int id)
{
    switch (id) {
    case KD_OPT_SKIP_SYSCALL_POLL_EVENTS:
        return &o->skip_syscall_poll_events;
    case KD_OPT_SKIP_UPCALL_STATS:
        return &o->skip_upcall_stats;
    case KD_OPT_SUMMARY:
        return &o->summary;
    case KD_OPT_HISTOGRAM:
        return &o->histogram;
    case KD_OPT_JSON:
        return &o->json;
    case KD_OPT_LIST_PROBES:
        return &o->list_probes;
    default:
        abort();
    }
}

/* "--tid 1,2,3": each a thread id; the list replaces an earlier one. */
static int
kd_parse_tids(struct kd_options *o, const struct kd_option_def *def,
              const char *arg, FILE *err)
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
        status = kd_get_uint(err, def, t, 1, KD_MAX_PID, &u);
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
kd_option_apply(struct kd_options *o, const struct kd_option_def *def,
                const char *arg, FILE *out, FILE *err)
{
    uint64_t u = 0;
    int status = -1;

    switch (def->id) {
    case KD_OPT_HELP:
        fputs(kd_usage, out);
        fputs(kd_help, out);
        return 0;
    case KD_OPT_VERSION:
        fprintf(out, "kernel_delay %s\n", KD_VERSION);
        o->version = true;
        return 0;
    case KD_OPT_DEBUG:
        return kd_option_debug(o, def, arg, err);
    case KD_OPT_PID:
        status = kd_get_uint(err, def, arg, 0, KD_MAX_PID, &u);
        o->pid = u;
        break;
    case KD_OPT_SYSCALL_EVENTS:
        if (arg) {
            status = kd_get_uint(err, def, arg, 0, UINT64_MAX / 2, &u);
        }
        o->syscall_events = true;
        o->syscall_events_ns = u;
        break;
    case KD_OPT_BUFFER_PAGE_COUNT:
        status = kd_get_uint(err, def, arg, 0, KD_MAX_PAGE_COUNT, &u);
        o->buffer_page_count = kd_next_power_of_two(u);
        break;
    case KD_OPT_SAMPLE_COUNT:
        status = kd_get_uint(err, def, arg, 1, KD_MAX_SAMPLE_COUNT, &u);
        o->sample_count = u;
        o->sample_count_set = true;
        break;
    case KD_OPT_LONG_POLL_EVENTS:
        u = KD_LONG_POLL_DEFAULT_NS;
        if (arg) {
            status = kd_get_uint(err, def, arg, 0, UINT64_MAX / 2, &u);
        }
        o->long_poll = true;
        o->long_poll_ns = u;
        break;
    case KD_OPT_SAMPLE_INTERVAL:
        status = kd_get_seconds(err, def, arg, 0, &o->sample_interval);
        break;
    case KD_OPT_SAMPLE_TIME:
        status = kd_get_seconds(err, def, arg, 1e-9, &o->sample_time);
        break;
    case KD_OPT_STACK_TRACE_SIZE:
        status = kd_get_uint(err, def, arg, 0, KD_MAX_STACK_TRACES, &u);
        o->stack_trace_size = u;
        break;
    case KD_OPT_START_TRIGGER:
        o->start_trigger = arg;
        break;
    case KD_OPT_STOP_TRIGGER:
        o->stop_trigger = arg;
        break;
    case KD_OPT_TRIGGER_DELTA:
        if (arg) {
            status = kd_get_uint(err, def, arg, 0, UINT64_MAX / 2, &u);
        }
        o->trigger_delta = u;
        break;
    case KD_OPT_THREAD:
        return kd_option_thread(o, def, arg, err);
    case KD_OPT_TID:
        return kd_parse_tids(o, def, arg, err);
    case KD_OPT_SKIP_SYSCALL_POLL_EVENTS:
    case KD_OPT_SKIP_UPCALL_STATS:
    case KD_OPT_SUMMARY:
    case KD_OPT_HISTOGRAM:
    case KD_OPT_JSON:
    case KD_OPT_LIST_PROBES:
        *kd_option_flag(o, def->id) = true;
        break;
    case KD_OPT_MAX_THREADS:
        status = kd_get_uint(err, def, arg, KD_MIN_MAX_THREADS,
                             KD_MAX_MAX_THREADS, &u);
        o->max_threads = u;
        break;
    case KD_N_OPTIONS:
    default:
        abort();
    }
    return status;
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

/* Like argparse, words that are no option, or no option's value, are
 * collected and reported together once all options are parsed. */
static void
kd_add_extra(struct kd_ds *extras, const char *word)
{
    kd_ds_put_format(extras, "%s%s", extras->length ? " " : "", word);
}

/* The options that --long-poll-events excludes: they shape samples,
 * which that mode has none of. */
static const enum kd_option_id kd_long_poll_conflicts[] = {
    KD_OPT_SYSCALL_EVENTS, KD_OPT_SAMPLE_INTERVAL, KD_OPT_SAMPLE_TIME,
    KD_OPT_SKIP_SYSCALL_POLL_EVENTS, KD_OPT_START_TRIGGER,
    KD_OPT_STOP_TRIGGER, KD_OPT_TRIGGER_DELTA, KD_OPT_SUMMARY,
    KD_OPT_HISTOGRAM,
};

/* As argparse reports two options of a mutually exclusive group: the one
 * given later, "not allowed with" the one given first.  'given_at' holds
 * each option's position on the command line, 0 when it is not given. */
static int
kd_check_conflicts(const int given_at[KD_N_OPTIONS], FILE *err)
{
    int lp = given_at[KD_OPT_LONG_POLL_EVENTS];

    if (!lp) {
        return -1;
    }
    for (size_t i = 0; i < KD_ARRAY_SIZE(kd_long_poll_conflicts); i++) {
        enum kd_option_id id = kd_long_poll_conflicts[i];
        const struct kd_option_def *first, *later;
        char name[64], why[96];

        if (!given_at[id]) {
            continue;
        }
        first = &kd_option_defs[given_at[id] < lp
                                ? id : KD_OPT_LONG_POLL_EVENTS];
        later = &kd_option_defs[given_at[id] < lp
                                ? KD_OPT_LONG_POLL_EVENTS : id];
        kd_option_display(first, name, sizeof name);
        snprintf(why, sizeof why, "not allowed with argument %s", name);
        return kd_arg_error(err, later, why);
    }
    return -1;
}

int
kd_options_parse(struct kd_options *options, int argc, char *argv[],
                 FILE *out, FILE *err)
{
    struct kd_ds extras = KD_DS_EMPTY_INITIALIZER;
    int given_at[KD_N_OPTIONS] = { 0 };
    int status = -1;

    *options = kd_options_defaults;
    for (int i = 1; i < argc && status < 0; i++) {
        const struct kd_option_def *def = NULL;
        const char *word = argv[i];
        const char *arg = NULL;
        bool attached = false;

        if (!strcmp(word, "--")) {
            while (++i < argc) {
                kd_add_extra(&extras, argv[i]);
            }
            break;
        } else if (!kd_looks_like_option(word)) {
            kd_add_extra(&extras, word);
            continue;
        } else if (word[1] == '-') {
            const char *name = word + 2;
            const char *eq = strchr(name, '=');
            size_t len = eq ? (size_t) (eq - name) : strlen(name);

            def = kd_find_long(name, len, word, err, &status);
            if (eq) {
                arg = eq + 1;
                attached = true;
            }
        } else {
            def = kd_find_short(word[1]);
            if (word[2]) {
                arg = word + 2 + (word[2] == '=');
                attached = true;
            }
        }
        if (status >= 0) {
            break;
        } else if (!def) {
            kd_add_extra(&extras, word);
            continue;
        }

        if (def->arg == KD_ARG_NONE && attached) {
            char why[128];

            snprintf(why, sizeof why, "ignored explicit argument '%s'", arg);
            status = kd_arg_error(err, def, why);
            break;
        }
        if (!attached && def->arg != KD_ARG_NONE && i + 1 < argc
            && !kd_looks_like_option(argv[i + 1])
            && strcmp(argv[i + 1], "--")) {
            arg = argv[++i];
        }
        if (!arg && def->arg == KD_ARG_REQUIRED) {
            status = kd_arg_error(err, def, "expected one argument");
            break;
        }
        if (!given_at[def->id]) {
            given_at[def->id] = i;
        }
        status = kd_option_apply(options, def, arg, out, err);
    }
    if (status < 0) {
        status = kd_check_conflicts(given_at, err);
    }

    if (status < 0 && extras.length) {
        status = kd_usage_error(err, "unrecognized arguments: %s",
                                kd_ds_cstr(&extras));
    }
    kd_ds_destroy(&extras);
    if (status >= 0) {
        /* The caller exits at once: leave nothing to free. */
        kd_options_destroy(options);
    }
    return status;
}
