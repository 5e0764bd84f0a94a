/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* libFuzzer target: kd_options_parse() and the number parsers under it.
 *
 * The input is a command line: its NUL bytes separate the words, which
 * become argv[1..] (argv[0] is "kernel_delay").  Output and error go to
 * /dev/null-like streams that only count (and keep the start of) what is
 * written.  Asserted:
 *
 *  - the status is -1 (go on), 0 (--help, --version) or 2 (usage error);
 *  - on -1, every value is within the ranges options.h documents (pid,
 *    debug flags, buffer pages a power of two, sample count, finite
 *    seconds, stack traces, durations, --max-threads when the option
 *    exists, --tid's list, --thread's regex) and the triggers point into
 *    argv; --long-poll-events comes with no option that shapes samples;
 *    nothing was printed;
 *  - on 0, something was printed on 'out' and nothing on 'err';
 *  - on 2, 'err' got "usage: kernel_delay ..." then one
 *    "kernel_delay: error: ..." line, and 'out' nothing;
 *  - argv is left as it was; after a status >= 0 nothing is left to free
 *    (LeakSanitizer), after -1 kd_options_destroy() frees it all;
 *  - kd_parse_u64() on every word agrees with a model of "a plain decimal
 *    number within [min, max]" for several ranges; kd_parse_seconds()
 *    accepts only finite values in range written with digits, signs, '.'
 *    and exponents, and gives strtod()'s value; kd_parse_duration_ns()
 *    agrees with a model of durations with units;
 *  - kd_next_power_of_two() of the first 4 bytes is the smallest power of
 *    two not below them. */

#define _GNU_SOURCE 1

#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "options.h"
#include "parse.h"

/* A write-only stream that counts what it is given and keeps its start. */
struct sink {
    size_t n;
    char head[4096];
};

static ssize_t
sink_write(void *cookie, const char *buf, size_t size)
{
    struct sink *s = cookie;

    if (s->n < sizeof s->head - 1) {
        size_t room = sizeof s->head - 1 - s->n;
        size_t n = size < room ? size : room;

        memcpy(s->head + s->n, buf, n);
        s->head[s->n + n] = '\0';
    }
    s->n += size;
    return size;
}

static FILE *
sink_open(struct sink *s)
{
    static const cookie_io_functions_t io = { .write = sink_write };
    FILE *f = fopencookie(s, "w", io);

    if (!f) {
        abort();
    }
    return f;
}

/* kd_parse_u64()'s contract, written independently: optional sign, then
 * decimal digits only; a negative number is out of range unless it is
 * zero and 0 is allowed. */
static int
model_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
    static const char u64max[] = "18446744073709551615";
    const char *p = s;
    bool neg = false;
    size_t ndigits;
    uint64_t v = 0;

    if (*p == '+' || *p == '-') {
        neg = *p == '-';
        p++;
    }
    ndigits = strspn(p, "0123456789");
    if (!ndigits || p[ndigits]) {
        return EINVAL;
    }
    while (*p == '0' && ndigits > 1) {
        p++;
        ndigits--;
    }
    if (neg) {
        if (strcmp(p, "0") || min > 0) {
            return ERANGE;
        }
        *out = 0;
        return 0;
    }
    if (ndigits > 20 || (ndigits == 20 && strcmp(p, u64max) > 0)) {
        return ERANGE;
    }
    for (; *p; p++) {
        v = v * 10 + (*p - '0');
    }
    if (v < min || v > max) {
        return ERANGE;
    }
    *out = v;
    return 0;
}

static void
check_u64(const char *word)
{
    static const uint64_t ranges[][2] = {
        { 0, UINT64_MAX },
        { 0, UINT64_MAX / 2 },
        { 1, KD_MAX_SAMPLE_COUNT },
        { 0, 0xff },
        { 0, KD_MAX_PID },
        { 64, 1u << 20 },
    };

    for (size_t i = 0; i < sizeof ranges / sizeof *ranges; i++) {
        uint64_t got = 12345, want = 54321;
        int e_got = kd_parse_u64(word, ranges[i][0], ranges[i][1], &got);
        int e_want = model_u64(word, ranges[i][0], ranges[i][1], &want);

        FUZZ_CHECK(e_got == e_want, "kd_parse_u64(\"%s\", %llu, %llu) "
                   "returned %d, expected %d", word,
                   (unsigned long long) ranges[i][0],
                   (unsigned long long) ranges[i][1], e_got, e_want);
        FUZZ_CHECK(e_got || got == want, "kd_parse_u64(\"%s\") gave %llu, "
                   "expected %llu", word, (unsigned long long) got,
                   (unsigned long long) want);
        FUZZ_CHECK(!e_got || got == 12345, "kd_parse_u64(\"%s\") wrote its "
                   "output on error", word);
    }
}

/* kd_parse_duration_ns()'s contract, written independently: the number
 * (sign, digits with at most one '.', an optional exponent) and the unit
 * are matched by a regular expression; the value is worked out by moving
 * the decimal point along the string of digits, whose integer part is
 * then compared with 'max' as a string.  Words of at most 200 bytes. */
static int
model_duration(const char *s, uint64_t max, uint64_t *out)
{
    static const char *const units[] = { "ns", "us", "ms", "s" };
    static const long exps[] = { 0, 3, 6, 9 };
    char digits[256], whole[64], max_str[32];
    long exp10 = 0, at, first;
    size_t n = 0, point = 0;
    bool neg = false;
    const char *p = s;
    regex_t re;
    int ok;

    regcomp(&re, "^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?"
            "(ns|us|ms|s)?$", REG_EXTENDED | REG_NOSUB);
    ok = !regexec(&re, s, 0, NULL, 0);
    regfree(&re);
    if (!ok) {
        return EINVAL;
    }
    if (*p == '+' || *p == '-') {
        neg = *p++ == '-';
    }
    for (; (*p >= '0' && *p <= '9') || *p == '.'; p++) {
        if (*p == '.') {
            point = n;
        } else {
            digits[n++] = *p;
        }
    }
    digits[n] = '\0';
    point = strchr(s, '.') ? point : n;
    if (*p == 'e' || *p == 'E') {
        long e = 0;
        bool eneg = p[1] == '-';

        for (p += 1 + (p[1] == '-' || p[1] == '+');
             *p >= '0' && *p <= '9'; p++) {
            e = e < 10000000 ? e * 10 + (*p - '0') : e;
        }
        exp10 = eneg ? -e : e;
    }
    for (size_t i = 0; *p && i < 4; i++) {
        exp10 += strcmp(p, units[i]) ? 0 : exps[i];
    }

    first = (long) strspn(digits, "0");
    if (first >= (long) n) {
        *out = 0;
        return 0;
    } else if (neg) {
        return ERANGE;
    }
    at = (long) point + exp10;          /* The point is before digit 'at'. */
    for (long k = at < 0 ? 0 : at; k < (long) n; k++) {
        if (digits[k] != '0') {
            return EDOM;
        }
    }
    if (at - first > 20) {
        return ERANGE;
    }
    size_t w = 0;
    for (long k = first; k < at; k++) {
        whole[w++] = k < (long) n ? digits[k] : '0';
    }
    whole[w] = '\0';
    snprintf(max_str, sizeof max_str, "%llu", (unsigned long long) max);
    if (w > strlen(max_str) || (w == strlen(max_str)
                                && strcmp(whole, max_str) > 0)) {
        return ERANGE;
    }
    *out = strtoull(whole, NULL, 10);
    return 0;
}

static void
check_duration(const char *word)
{
    static const uint64_t maxes[] = {
        UINT64_MAX, UINT64_MAX / 2, KD_MAX_SECONDS * 1000000000ull, 1000,
    };

    if (strlen(word) > 200) {
        return;
    }
    for (size_t i = 0; i < sizeof maxes / sizeof *maxes; i++) {
        uint64_t got = 12345, want = 54321;
        int e_got = kd_parse_duration_ns(word, maxes[i], &got);
        int e_want = model_duration(word, maxes[i], &want);

        FUZZ_CHECK(e_got == e_want, "kd_parse_duration_ns(\"%s\", %llu) "
                   "returned %d, expected %d", word,
                   (unsigned long long) maxes[i], e_got, e_want);
        FUZZ_CHECK(e_got || e_want || got == want, "kd_parse_duration_ns("
                   "\"%s\") gave %llu, expected %llu", word,
                   (unsigned long long) got, (unsigned long long) want);
        FUZZ_CHECK(!e_got || got == 12345, "kd_parse_duration_ns(\"%s\") "
                   "wrote its output on error", word);
    }
}

static void
check_seconds(const char *word)
{
    static const double ranges[][2] = {
        { 0, KD_MAX_SECONDS },
        { 1e-9, KD_MAX_SECONDS },
    };

    for (size_t i = 0; i < sizeof ranges / sizeof *ranges; i++) {
        double v = -42;
        int e = kd_parse_seconds(word, ranges[i][0], ranges[i][1], &v);

        FUZZ_CHECK(e == 0 || e == EINVAL || e == ERANGE,
                   "kd_parse_seconds(\"%s\") returned %d", word, e);
        if (e) {
            FUZZ_CHECK(v == -42, "kd_parse_seconds(\"%s\") wrote its "
                       "output on error", word);
            continue;
        }
        FUZZ_CHECK(*word && !word[strspn(word, "0123456789+-.eE")],
                   "kd_parse_seconds accepted \"%s\"", word);
        FUZZ_CHECK(isfinite(v) && v >= ranges[i][0] && v <= ranges[i][1],
                   "kd_parse_seconds(\"%s\") gave %g, outside [%g, %g]",
                   word, v, ranges[i][0], ranges[i][1]);

        char *end;
        double ref = strtod(word, &end);
        FUZZ_CHECK(!*end, "kd_parse_seconds accepted \"%s\", which strtod "
                   "does not take whole", word);
        FUZZ_CHECK(v == ref || (v == 0 && fabs(ref) <= 2.3e-308),
                   "kd_parse_seconds(\"%s\") gave %.17g, strtod %.17g",
                   word, v, ref);
    }
}

static bool
points_into(const char *p, char *const argv[], int argc)
{
    for (int i = 1; i < argc; i++) {
        if (p >= argv[i] && p <= argv[i] + strlen(argv[i])) {
            return true;
        }
    }
    return false;
}

static void
check_values(const struct kd_options *o, char *argv[], int argc)
{
    FUZZ_CHECK(o->debug <= 0xff, "debug %u", o->debug);
    FUZZ_CHECK(o->pid <= KD_MAX_PID, "pid %u", o->pid);
    FUZZ_CHECK(o->syscall_events || !o->syscall_events_ns,
               "syscall_events_ns %llu without -s",
               (unsigned long long) o->syscall_events_ns);
    FUZZ_CHECK(o->syscall_events_ns <= UINT64_MAX / 2, "syscall_events_ns "
               "%llu", (unsigned long long) o->syscall_events_ns);
    FUZZ_CHECK(o->buffer_page_count >= 1
               && o->buffer_page_count <= KD_MAX_PAGE_COUNT
               && !(o->buffer_page_count & (o->buffer_page_count - 1)),
               "buffer_page_count %u", o->buffer_page_count);
    FUZZ_CHECK(o->sample_count >= 1
               && o->sample_count <= KD_MAX_SAMPLE_COUNT,
               "sample_count %u", o->sample_count);
    FUZZ_CHECK(isfinite(o->sample_interval) && o->sample_interval >= 0
               && o->sample_interval <= KD_MAX_SECONDS,
               "sample_interval %g", o->sample_interval);
    FUZZ_CHECK(isfinite(o->sample_time) && o->sample_time > 0
               && o->sample_time <= KD_MAX_SECONDS,
               "sample_time %g", o->sample_time);
    FUZZ_CHECK(o->stack_trace_size <= KD_MAX_STACK_TRACES,
               "stack_trace_size %u", o->stack_trace_size);
    FUZZ_CHECK(o->trigger_delta <= UINT64_MAX / 2, "trigger_delta %llu",
               (unsigned long long) o->trigger_delta);
    FUZZ_CHECK(!o->start_trigger || points_into(o->start_trigger, argv,
                                                argc),
               "start_trigger does not point into argv");
    FUZZ_CHECK(!o->stop_trigger || points_into(o->stop_trigger, argv, argc),
               "stop_trigger does not point into argv");
#ifdef KD_LONG_POLL_DEFAULT_NS
    /* --long-poll-events never comes with an option that shapes samples
     * (those left at their defaults may have been given: either way). */
    FUZZ_CHECK(o->long_poll || o->long_poll_ns == KD_LONG_POLL_DEFAULT_NS,
               "long_poll_ns %llu without --long-poll-events",
               (unsigned long long) o->long_poll_ns);
    FUZZ_CHECK(o->long_poll_ns <= UINT64_MAX / 2, "long_poll_ns %llu",
               (unsigned long long) o->long_poll_ns);
    FUZZ_CHECK(!o->long_poll
               || (!o->start_trigger && !o->stop_trigger
                   && !o->syscall_events && !o->skip_syscall_poll_events
                   && !o->summary && !o->histogram && !o->trigger_delta
                   && o->sample_time == kd_options_defaults.sample_time
                   && o->sample_interval
                      == kd_options_defaults.sample_interval),
               "--long-poll-events with an option that shapes samples");
    FUZZ_CHECK(o->sample_count_set
               || o->sample_count == kd_options_defaults.sample_count,
               "sample_count %u not set", o->sample_count);
#endif
#ifdef KD_MIN_MAX_THREADS
    FUZZ_CHECK(o->max_threads >= KD_MIN_MAX_THREADS
               && o->max_threads <= KD_MAX_MAX_THREADS,
               "max_threads %u", o->max_threads);
#endif
#ifdef KD_MAX_TIDS
    FUZZ_CHECK(o->n_tids <= KD_MAX_TIDS, "%zu tids", o->n_tids);
    FUZZ_CHECK(!o->tids == !o->n_tids, "tids %p but n_tids %zu",
               (void *) o->tids, o->n_tids);
    for (size_t i = 0; i < o->n_tids; i++) {
        FUZZ_CHECK(o->tids[i] >= 1 && o->tids[i] <= KD_MAX_PID, "tid %u",
                   o->tids[i]);
    }
    if (o->thread_regex) {
        regex_t re;

        FUZZ_CHECK(points_into(o->thread_regex, argv, argc),
                   "thread_regex does not point into argv");
        FUZZ_CHECK(!regcomp(&re, o->thread_regex, REG_EXTENDED | REG_NOSUB),
                   "--thread '%s' accepted but does not compile",
                   o->thread_regex);
        regfree(&re);
    }
#endif
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct sink out_sink, err_sink;
    static FILE *out, *err;
    struct kd_options o;
    char *buf, **argv, **saved;
    int argc = size ? 2 : 1, status;

    if (!out) {
        out = sink_open(&out_sink);
        err = sink_open(&err_sink);
    }
    memset(&out_sink, 0, sizeof out_sink);
    memset(&err_sink, 0, sizeof err_sink);

    /* argv[1..] are the NUL-separated words of the input (none when it is
     * empty). */
    buf = malloc(size + 1);
    memcpy(buf, data, size);
    buf[size] = '\0';
    for (size_t i = 0; i < size; i++) {
        argc += buf[i] == '\0';
    }
    argv = calloc(argc + 1, sizeof *argv);
    saved = calloc(argc + 1, sizeof *saved);
    argv[0] = "kernel_delay";
    for (int i = 1, off = 0; i < argc; i++) {
        argv[i] = buf + off;
        off += strlen(buf + off) + 1;
    }
    memcpy(saved, argv, (argc + 1) * sizeof *argv);
    char *copy = malloc(size + 1);
    memcpy(copy, buf, size + 1);

    status = kd_options_parse(&o, argc, argv, out, err);
    fflush(out);
    fflush(err);

    FUZZ_CHECK(status == -1 || status == 0 || status == 2, "status %d",
               status);
    FUZZ_CHECK(!memcmp(saved, argv, (argc + 1) * sizeof *argv)
               && !memcmp(copy, buf, size + 1), "argv was modified");
    switch (status) {
    case -1:
        FUZZ_CHECK(!out_sink.n && !err_sink.n, "printed %zu + %zu bytes "
                   "and went on", out_sink.n, err_sink.n);
        check_values(&o, argv, argc);
        break;
    case 0:
        FUZZ_CHECK(out_sink.n && !err_sink.n, "exit 0 with %zu bytes out, "
                   "%zu err", out_sink.n, err_sink.n);
        break;
    case 2:
        FUZZ_CHECK(!out_sink.n && err_sink.n, "exit 2 with %zu bytes out, "
                   "%zu err", out_sink.n, err_sink.n);
        FUZZ_CHECK(!strncmp(err_sink.head, "usage: kernel_delay ", 20)
                   && strstr(err_sink.head, "\nkernel_delay: error: "),
                   "usage error without usage and error lines: %s",
                   err_sink.head);
        break;
    }

#ifdef KD_MAX_TIDS
    /* options.h: after a status >= 0, 'options' holds nothing to free (the
     * caller exits at once), so only destroy them after -1: LeakSanitizer
     * reports anything left. */
    if (status < 0) {
        kd_options_destroy(&o);
    }
#endif

    for (int i = 1; i < argc && i <= 16; i++) {
        check_u64(argv[i]);
        check_seconds(argv[i]);
        check_duration(argv[i]);
    }

    if (size >= 4) {
        uint32_t n;
        unsigned int p;

        memcpy(&n, data, sizeof n);
        p = kd_next_power_of_two(n);
        FUZZ_CHECK(p && !(p & (p - 1)), "kd_next_power_of_two(%u) = %u",
                   n, p);
        FUZZ_CHECK(n > 1u << 31 ? p == 1u << 31 : p >= n && (p == 1
                                                             || p / 2 < n),
                   "kd_next_power_of_two(%u) = %u", n, p);
    }

    free(copy);
    free(saved);
    free(argv);
    free(buf);
    return 0;
}
