/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_OUTPUT_H
#define KD_OUTPUT_H 1

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "status.h"
#include "target.h"
#include "util.h"

struct kd_gap;
struct kd_losses;
struct kd_metrics;
struct kd_options;
struct kd_snapshot;
struct kd_window;

/* What a run writes, in the format chosen once at start-up: one
 * interface, struct kd_output, with one implementation per format (text
 * in the reference's layout, JSON Lines with --json), as bpftrace's
 * Output.  The sampling loop and the watch loop call its operations as
 * things happen and never ask which format is on; each implementation
 * writes what its format says of each one (rendered by render_text or
 * render_json), and flushes it, or nothing at all.
 *
 * To add an operation: a member below, with the arguments every format
 * needs; its text and its JSON implementation in output.c (one that has
 * nothing to say does nothing); the call where it happens; and its test
 * in tests/unit/test_output.c. */
struct kd_output {
    /* Where the report goes (standard output), and the "ERROR: ..." lines
     * (kd_output_error()): the report's stream in text, as the reference
     * writes them; standard error in JSON, so that standard output stays
     * JSON Lines whatever happens. */
    FILE *stream;
    FILE *errors;

    /* The status line on a terminal's standard error, or NULL: none (not
     * a terminal, or -q).  Set with kd_output_set_status(); every
     * operation that writes erases it first. */
    struct kd_status_line *line;
    /* The "node" of every JSON record (--node-name), or NULL. */
    const char *node;
    /* Where each ended long poll interval's stacks go in the folded
     * format (--folded), or NULL. */
    FILE *folded;
    /* What each watch and each ended interval count in (--metrics), or
     * NULL. */
    struct kd_metrics *metrics;

    /* Sampling (kd_sampler_run()). */

    /* The sample started: now, or when the start trigger fired. */
    void (*sample_start)(const struct kd_output *, const struct kd_window *);

    /* The sample stopped and is about to be read: after --sample-time, or
     * when the stop trigger fired, with the stop-start delta and whether
     * it is skipped (under --trigger-delta). */
    void (*sample_stop)(const struct kd_output *, const struct kd_window *);

    /* The report of resolved sample 'snap', or of its skipping. */
    void (*sample)(const struct kd_output *, const struct kd_snapshot *snap);

    /* Process 'tgid' exited: while the tool waited for the start trigger
     * ('waiting'), or during the sample just reported. */
    void (*exited)(const struct kd_output *, unsigned int tgid, bool waiting);

    /* After the last sample: what the capture lost since the start,
     * 'total', when 'sample_count' samples were asked for. */
    void (*final)(const struct kd_output *, const struct kd_losses *total,
                  unsigned int sample_count);

    /* Watching long poll intervals (--long-poll-events). */

    /* The watch started, for intervals over 'threshold_ns'. */
    void (*watch_start)(const struct kd_output *, uint64_t threshold_ns);

    /* One long poll interval, as it ended, with what the capture lost so
     * far, 'total'. */
    void (*long_poll)(const struct kd_output *, const struct kd_gap *,
                      const struct kd_losses *total);

    /* The watch stopped: on a signal, the target's exit or the last of
     * --sample-count intervals. */
    void (*watch_stop)(const struct kd_output *);

    /* While waiting for a start trigger or watching long poll intervals,
     * about once per 100 ms: what the wait has seen so far, 'status'.
     * The same in each format: the status line, updated in place (only
     * when the line is set), never on the report's stream. */
    void (*status)(const struct kd_output *, const struct kd_status *);

    /* The wait for the start trigger 'what' ended after 'waited_ns' with
     * no trigger, on a signal: a note on standard error. */
    void (*wait_end)(const struct kd_output *, const char *what,
                     uint64_t waited_ns);

    /* The end of the watch of process 'tgid': how many intervals were
     * reported, what the capture lost, 'total', and whether the target
     * exited. */
    void (*watch_end)(const struct kd_output *, unsigned int tgid,
                      const struct kd_losses *total, unsigned int reported,
                      bool target_exited);

    /* --wait-target: the tool waits for ovs-vswitchd (with the 'tgid' it
     * lost, or 0), attached to process 'tgid', or lost it.  Written
     * now. */
    void (*target)(const struct kd_output *, enum kd_target_event,
                   unsigned int tgid);
};

/* Fills 'output' with the implementation 'options' ask for (--json or
 * not), writing the report to 'stream' and, in JSON, the errors to
 * 'errors', with the "node" of --node-name in every JSON record. */
void kd_output_init(struct kd_output *output,
                    const struct kd_options *options, FILE *stream,
                    FILE *errors);

/* The status line's state: the terminal, and how many columns of it the
 * line shown now takes (0: none). */
struct kd_status_line {
    FILE *tty;
    size_t shown;
    char *text;                 /* What is shown, or NULL. */
};

/* Shows the status line on 'tty' (standard error, a terminal), with
 * 'line' as its state, which must outlive 'output'. */
void kd_output_set_status(struct kd_output *output,
                          struct kd_status_line *line, FILE *tty);

/* Erases the status line, if one is shown, and forgets it. */
void kd_output_status_clear(const struct kd_output *);

/* Writes an "ERROR: ..." line to the output's error stream, after what
 * was written to the report so far. */
void kd_output_error(const struct kd_output *, const char *format, ...)
    KD_PRINTF_FORMAT(2, 3);

#endif /* output.h */
