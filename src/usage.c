/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* What the command line shows and says, from a table of options. */

#include "usage.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

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

/* The option as argparse names it in errors: "-p/--pid". */
void
kd_usage_option_name(const struct kd_option_def *def, char *buf,
                     size_t size)
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
void
kd_usage_put_invocation(struct kd_ds *ds, const struct kd_option_def *def,
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
void
kd_usage_put_usage(const struct kd_option_table *t, FILE *stream)
{
    const size_t indent = strlen(KD_USAGE_PREFIX);
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    size_t line = indent;

    kd_ds_put_cstr(&ds, KD_USAGE_PREFIX);
    for (size_t i = 0; i < t->n; i++) {
        const struct kd_option_def *def = &t->defs[i];
        struct kd_ds part = KD_DS_EMPTY_INITIALIZER;

        kd_ds_put_char(&part, '[');
        kd_usage_put_invocation(&part, def, def->short_name);
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
void
kd_usage_put_help(const struct kd_option_table *t, FILE *stream)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    kd_usage_put_usage(t, stream);
    kd_ds_put_cstr(&ds, kd_help_intro);
    for (size_t i = 0; i < t->n; i++) {
        const struct kd_option_def *def = &t->defs[i];
        size_t start = ds.length;
        const char *help = def->help;

        kd_ds_put_cstr(&ds, "  ");
        if (def->short_name) {
            kd_usage_put_invocation(&ds, def, true);
            kd_ds_put_cstr(&ds, ", ");
        }
        kd_usage_put_invocation(&ds, def, false);
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

int
kd_usage_error(const struct kd_option_table *t, FILE *err,
               const char *format, ...)
{
    va_list args;

    kd_usage_put_usage(t, err);
    fputs("kernel_delay: error: ", err);
    va_start(args, format);
    vfprintf(err, format, args);
    va_end(args);
    fputc('\n', err);
    return 2;
}

int
kd_usage_arg_error(const struct kd_option_table *t, FILE *err,
                   const struct kd_option_def *def, const char *why)
{
    char name[64];

    kd_usage_option_name(def, name, sizeof name);
    return kd_usage_error(t, err, "argument %s: %s", name, why);
}

/* An unsigned integer option, with the reference's messages for what it
 * rejects and ours for what it let through. */
int
kd_usage_get_uint(const struct kd_option_table *t, FILE *err,
                  const struct kd_option_def *def, const char *arg,
                  uint64_t min, uint64_t max, uint64_t *out)
{
    bool zero = arg[strspn(arg, "+-")] && !arg[strspn(arg, "+-0")];
    uint64_t value;
    char why[128];

    switch (kd_parse_u64(arg, min, max, out)) {
    case 0:
        return -1;
    case EINVAL:
        return kd_usage_arg_error(t, err, def, "must be an integer");
    default:
        if (zero && min == 1) {
            return kd_usage_arg_error(t, err, def, "must be nonzero");
        }
        if (arg[0] == '-' && !zero) {
            return kd_usage_arg_error(t, err, def, "must be positive");
        }
        if (!kd_parse_u64(arg, 0, UINT64_MAX, &value) && value < min) {
            snprintf(why, sizeof why, "must be at least %" PRIu64, min);
        } else {
            snprintf(why, sizeof why, "must be at most %" PRIu64, max);
        }
        return kd_usage_arg_error(t, err, def, why);
    }
}

/* Why duration 'arg' is not a whole number of nanoseconds. */
static int
kd_usage_fraction_error(const struct kd_option_table *t, FILE *err,
                        const struct kd_option_def *def, const char *arg)
{
    char why[160];

    snprintf(why, sizeof why, "invalid duration '%.40s': not a whole "
             "number of nanoseconds", arg);
    return kd_usage_arg_error(t, err, def, why);
}

/* A duration in nanoseconds, with the reference's messages for what its
 * unsigned_int() rejects and ours for the units it does not know. */
int
kd_usage_get_duration_ns(const struct kd_option_table *t, FILE *err,
                         const struct kd_option_def *def, const char *arg,
                         uint64_t max, uint64_t *out)
{
    char why[160];

    switch (kd_parse_duration_ns(arg, max, out)) {
    case 0:
        return -1;
    case EDOM:
        return kd_usage_fraction_error(t, err, def, arg);
    case EINVAL:
        if (!isdigit((unsigned char) arg[strspn(arg, "+-.")])) {
            return kd_usage_arg_error(t, err, def, "must be an integer");
        }
        snprintf(why, sizeof why, "invalid duration '%.40s': a number "
                 "then, with no space, ns, us, ms or s (50ms, 1.5s, 1e6)",
                 arg);
        return kd_usage_arg_error(t, err, def, why);
    default:
        if (arg[0] == '-') {
            return kd_usage_arg_error(t, err, def, "must be positive");
        }
        snprintf(why, sizeof why, "must be at most %" PRIu64, max);
        return kd_usage_arg_error(t, err, def, why);
    }
}

int
kd_usage_get_seconds(const struct kd_option_table *t, FILE *err,
                     const struct kd_option_def *def, const char *arg,
                     double min, uint32_t max, double *out)
{
    char why[128];

    switch (kd_parse_seconds_or_unit(arg, min, max, out)) {
    case EDOM:
        return kd_usage_fraction_error(t, err, def, arg);
    case 0:
        return -1;
    case EINVAL:
        snprintf(why, sizeof why, "invalid float value: '%s'", arg);
        return kd_usage_arg_error(t, err, def, why);
    default:
        snprintf(why, sizeof why, "must be %s and at most %" PRIu32
                 " seconds", min > 0 ? "greater than 0" : "0 or more", max);
        return kd_usage_arg_error(t, err, def, why);
    }
}

/* Option 'later' is not allowed with option 'first': argparse's message
 * for mutually exclusive options.  Returns the usage exit status. */
int
kd_usage_not_allowed(const struct kd_option_table *t, FILE *err,
                     const struct kd_option_def *later,
                     const struct kd_option_def *first)
{
    char name[64], why[96];

    kd_usage_option_name(first, name, sizeof name);
    snprintf(why, sizeof why, "not allowed with argument %s", name);
    return kd_usage_arg_error(t, err, later, why);
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
kd_usage_suggest(const struct kd_option_table *t, const char *name, size_t len,
                 struct kd_ds *ds)
{
    size_t best = SIZE_MAX, n = 0, seen = 0;

    for (size_t i = 0; i < t->n; i++) {
        best = KD_MIN(best, kd_option_distance(name, len, &t->defs[i]));
    }
    /* As git: close enough that a typo is likely (here at most two edits,
     * and fewer than half the name's letters). */
    if (best > 2 || 2 * best >= len) {
        return false;
    }
    for (size_t i = 0; i < t->n; i++) {
        n += kd_option_distance(name, len, &t->defs[i]) == best;
    }
    for (size_t i = 0; i < t->n; i++) {
        if (kd_option_distance(name, len, &t->defs[i]) == best) {
            seen++;
            kd_ds_put_format(ds, "%s--%s",
                             seen == 1 ? "" : seen == n ? " or " : ", ",
                             t->defs[i].long_name);
        }
    }
    return true;
}

/* After "unrecognized arguments": for 'word', if it is a long option
 * misspelt, the closest ones. */
void
kd_usage_put_suggestion(const struct kd_option_table *t, struct kd_ds *hints,
                        const char *word)
{
    struct kd_ds names = KD_DS_EMPTY_INITIALIZER;
    const char *name = word + 2;
    size_t len = strcspn(name, "=");

    if (!strncmp(word, "--", 2) && len
        && kd_usage_suggest(t, name, len, &names)) {
        kd_ds_put_format(hints, "kernel_delay: unknown option --%.*s: did "
                         "you mean %s?\n", (int) len, name,
                         kd_ds_cstr(&names));
    }
    kd_ds_destroy(&names);
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
bool
kd_usage_looks_like_option(const char *s)
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
kd_find_long(const struct kd_option_table *t, const char *name, size_t len,
             const char *word, FILE *err, int *status)
{
    const struct kd_option_def *found = NULL, *found_ref = NULL;
    struct kd_ds matches = KD_DS_EMPTY_INITIALIZER;
    int n = 0, n_ref = 0;

    for (size_t i = 0; i < t->n; i++) {
        const struct kd_option_def *def = &t->defs[i];

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
        *status = kd_usage_error(t, err,
                                 "ambiguous option: %s could match %s",
                                 word, kd_ds_cstr(&matches));
        found = NULL;
    }
    kd_ds_destroy(&matches);
    return found;
}

static const struct kd_option_def *
kd_find_short(const struct kd_option_table *t, char c)
{
    for (size_t i = 0; i < t->n; i++) {
        if (t->defs[i].short_name == c) {
            return &t->defs[i];
        }
    }
    return NULL;
}

/* The option that 'word' (which looks like one) names, and in '*arg' its
 * value if it is attached ("--pid=1", "-p1"), else NULL.  Returns NULL
 * when there is none, and then sets '*status' to an exit status if the
 * name was ambiguous (reporting it). */
const struct kd_option_def *
kd_usage_find_option(const struct kd_option_table *t, const char *word,
                     const char **arg, FILE *err, int *status)
{
    if (word[1] == '-') {
        const char *name = word + 2;
        const char *eq = strchr(name, '=');
        size_t len = eq ? (size_t) (eq - name) : strlen(name);

        *arg = eq ? eq + 1 : NULL;
        return kd_find_long(t, name, len, word, err, status);
    }
    *arg = word[2] ? word + 2 + (word[2] == '=') : NULL;
    return kd_find_short(t, word[1]);
}
