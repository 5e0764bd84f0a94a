/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_EVIDENCE_H
#define KD_EVIDENCE_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "action.h"
#include "tracedir.h"

struct kd_capture;
struct kd_gap;
struct kd_options;
struct kd_output;
struct kd_symbols;

/* The name of the trace of the interval of thread 'tid' that began at
 * 'start_ns', reported in progress: its later reports, and its end, are
 * written under the same name, whatever the wall clock did meanwhile. */
struct kd_evidence_name {
    uint32_t tid;
    uint64_t start_ns;
    char *name;
};

/* What is kept of each long poll interval reported, beside the report:
 * its trace in the directory of --trace-dir (trace, tracedir), and the
 * command of --on-long-poll run (action).  Lives for the whole run, across
 * the attachments of --wait-target.  What it does and what fails is said
 * on standard error, "kernel_delay: ..." lines, and never ends the
 * watch. */
struct kd_evidence {
    const struct kd_options *options;
    const struct kd_output *output;
    char *node;                 /* --node-name, else the host's name. */
    bool trace;
    struct kd_tracedir dir;
    struct kd_evidence_name *names; /* The traces of the intervals */
    size_t n_names;                 /* reported in progress. */
    bool act;
    struct kd_action action;
};

/* Sets 'e' up for 'options' (nothing to do without --trace-dir or
 * --on-long-poll).  Returns 0, or a positive errno after saying, on
 * 'output', why the directory cannot be written in. */
int kd_evidence_init(struct kd_evidence *e, const struct kd_options *options,
                     const struct kd_output *output);

/* Interval 'gap', just reported, read from 'capture', its stacks named
 * through 'symbols': its trace written, the command run.  Nothing for
 * 'e' NULL. */
void kd_evidence_interval(struct kd_evidence *e, struct kd_capture *capture,
                          struct kd_symbols *symbols,
                          const struct kd_gap *gap);

/* As the watch wakes up: the command reaped if it ended.  Nothing for 'e'
 * NULL. */
void kd_evidence_poll(struct kd_evidence *e);

/* Says what was written, removed and run; ends a command still running. */
void kd_evidence_destroy(struct kd_evidence *e);

#endif /* evidence.h */
