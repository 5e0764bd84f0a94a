/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_ACTION_H
#define KD_ACTION_H 1

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* --on-long-poll: a command run through /bin/sh -c when a long poll
 * interval is reported, with the interval's facts in its environment;
 * never more than one at a time, and at most one per period; started
 * without waiting (posix_spawn()), in a process group of its own, its
 * standard input /dev/null and its output on our standard error, none of
 * our other descriptors open (glibc 2.34 and later); reaped
 * as the watch wakes up (kd_action_poll()), never waited for.  Each
 * start, end and skip is said on 'log', "kernel_delay: on-long-poll:
 * ...". */
struct kd_action {
    char *cmd;
    uint64_t period_ns;
    uint64_t grace_ns;          /* At the end, for the one that runs. */
    FILE *log;

    pid_t pid;                  /* The command running, or 0. */
    uint64_t started_ns;        /* Its start, or the last one. */
    bool ever;                  /* One was started. */

    /* Counts since the start. */
    unsigned int runs;          /* Started. */
    unsigned int failed;        /* Ended with a status other than 0, on a
                                 * signal, or not started. */
    unsigned int busy;          /* Not run: one was running. */
    unsigned int early;         /* Not run: within the period. */
};

/* How long a command still running at the end is given to end. */
#define KD_ACTION_GRACE_NS 2000000000ull

/* 'grace_ns' is KD_ACTION_GRACE_NS. */
void kd_action_init(struct kd_action *, const char *cmd, uint64_t period_ns,
                    FILE *log);

/* An interval of thread 'what' (for the log) was reported at 'now'
 * (CLOCK_MONOTONIC): runs the command with 'env' ("NAME=VALUE" strings,
 * 'n' of them) added to our environment, unless one runs or the period
 * since the last start is not over (then counted and said).  Returns 0
 * if it started, else a positive errno (EBUSY, EAGAIN: not its turn). */
int kd_action_run(struct kd_action *, const char *what, char *const *env,
                  size_t n, uint64_t now);

/* Reaps the command if it ended, saying how and after how long.  Never
 * waits. */
void kd_action_poll(struct kd_action *, uint64_t now);

/* Says the counts, if anything was to be run; a command still running is
 * given 'grace_ns' to end (that of the last interval reported may have
 * just started), then ended (SIGTERM to its process group, SIGKILL 1 s
 * later). */
void kd_action_destroy(struct kd_action *);

#endif /* action.h */
