/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_USAGE_H
#define KD_USAGE_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util.h"

/* What the command line shows and says, as Python 3.11's argparse does on
 * an 80-column terminal: the usage line, --help, the errors (the usage,
 * then "kernel_delay: error: argument -p/--pid: ..."), the messages for a
 * value an option rejects, and the options a misspelt one may have meant.
 * All from a table of options (struct kd_option_table), which options.c
 * holds (kd_options_table()).  Pure: nothing here touches the kernel. */

struct kd_options;

/* How an option takes a value. */
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

/* The options of a command line, in the order --help shows them. */
struct kd_option_table {
    const struct kd_option_def *defs;
    size_t n;
};

/* The option as argparse names it in errors: "-p/--pid". */
void kd_usage_option_name(const struct kd_option_def *, char *buf,
                          size_t size);

/* Option 'def' as the usage and --help show it, by its short name if
 * 'short_name', else by its long one: "-p VSWITCHD_PID", "--debug
 * [DEBUG]". */
void kd_usage_put_invocation(struct kd_ds *, const struct kd_option_def *,
                             bool short_name);

/* "usage: kernel_delay [-h] ...", on 'stream'. */
void kd_usage_put_usage(const struct kd_option_table *, FILE *stream);

/* --help: the usage, what the program does, then each option with its
 * help, on 'stream'. */
void kd_usage_put_help(const struct kd_option_table *, FILE *stream);

/* A usage error: the usage, then "kernel_delay: error: " and the message,
 * on 'err'.  Returns the exit status of a usage error, 2. */
int kd_usage_error(const struct kd_option_table *, FILE *err,
                   const char *format, ...) KD_PRINTF_FORMAT(3, 4);

/* The usage error "argument -p/--pid: WHY".  Returns 2. */
int kd_usage_arg_error(const struct kd_option_table *, FILE *err,
                       const struct kd_option_def *, const char *why);

/* Option 'later' is not allowed with option 'first': argparse's message
 * for mutually exclusive options.  Returns 2. */
int kd_usage_not_allowed(const struct kd_option_table *, FILE *err,
                         const struct kd_option_def *later,
                         const struct kd_option_def *first);

/* The value 'arg' of option 'def' into '*out': an unsigned integer within
 * [min, max], a duration in nanoseconds at most 'max', or one in seconds
 * within [min, max], with the reference's messages for what it rejects
 * and ours for what it let through.  Return -1, or 2 after a usage error
 * (reported on 'err'). */
int kd_usage_get_uint(const struct kd_option_table *, FILE *err,
                      const struct kd_option_def *def, const char *arg,
                      uint64_t min, uint64_t max, uint64_t *out);
int kd_usage_get_duration_ns(const struct kd_option_table *, FILE *err,
                             const struct kd_option_def *def,
                             const char *arg, uint64_t max, uint64_t *out);
int kd_usage_get_seconds(const struct kd_option_table *, FILE *err,
                         const struct kd_option_def *def, const char *arg,
                         double min, uint32_t max, double *out);

/* The long options closest to the unknown option name 'name' ("sampel-time",
 * without "--" or "=VALUE"), as git suggests commands: appended to 'ds' as
 * "--sample-time", or "--a or --b" for a tie.  Returns false, appending
 * nothing, when none is close enough to be meant. */
bool kd_usage_suggest(const struct kd_option_table *, const char *name,
                      size_t len, struct kd_ds *ds);

/* After "unrecognized arguments": for 'word', if it is a long option
 * misspelt, the line that names the closest ones, appended to 'hints'. */
void kd_usage_put_suggestion(const struct kd_option_table *,
                             struct kd_ds *hints, const char *word);

/* argparse's test for a word that is an option, not a value: it starts
 * with '-', is not just "-", and is no negative number. */
bool kd_usage_looks_like_option(const char *s);

/* The option of table 't' that 'word' (which looks like one) names, by
 * its name or, as argparse does, by an unambiguous prefix of it, and in
 * '*arg' its value if it is attached ("--pid=1", "-p1"), else NULL.
 * Returns NULL when there is none, and then sets '*status' to an exit
 * status if the name was ambiguous (reporting it on 'err'). */
const struct kd_option_def *kd_usage_find_option(
    const struct kd_option_table *t, const char *word, const char **arg,
    FILE *err, int *status);

#endif /* usage.h */
