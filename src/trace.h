/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_TRACE_H
#define KD_TRACE_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kd_abi.h"

struct kd_ds;
struct kd_gap;

/* --trace-dir: one long poll interval and what happened to its thread
 * before and during it (the records of its ring, struct kd_trace_rec), as
 * a trace in the JSON Trace Event Format, which ui.perfetto.dev and
 * chrome://tracing open.  Pure: nothing here touches the kernel.
 *
 * The trace has, for the thread (process 'pid', thread 'tid'):
 *   - its track: its states as slices, "running (CPU N)", "runnable (CPU
 *     N)", "asleep in SYSCALL" (or "asleep"), "stopped", each with
 *     args.state; inside a run, its hard and soft IRQs; inside a wait,
 *     who held the CPU (one slice per task, args tid, pid, name); its
 *     profile samples as instants with their stacks;
 *   - a track of its poll loop (thread id 'tid' + KD_TRACE_LOOP_TID):
 *     the interval as one slice, its parts as args, and its syscalls as
 *     slices (inside it, or before it);
 *   - each wake-up: a slice on the waker's own thread, and a flow arrow
 *     from there to the wait that the wake-up begins. */

/* The poll loop's track: a thread id no thread has (PID_MAX_LIMIT is
 * 2^22). */
#define KD_TRACE_LOOP_TID (1u << 30)

/* Where the frames of stacks come from: 'frames' puts into '*v' a new
 * array of those of kernel stack 'kstack' then user stack 'ustack' (-1:
 * none), innermost first, without the tracing machinery's first frames if
 * 'tracepoint', and returns how many (0: none, '*v' NULL).  The caller
 * frees each and the array. */
struct kd_trace_stacks {
    size_t (*frames)(void *aux, int32_t kstack, int32_t ustack,
                     bool tracepoint, char ***v);
    void *aux;
};

struct kd_trace_input {
    const struct kd_gap *gap;           /* Decoded, stacks resolved. */
    const struct kd_trace_rec *recs;    /* Oldest first (ring order). */
    size_t n_recs;
    uint64_t lost;                      /* Older ones the ring lost. */
    bool no_history;                    /* The thread had no ring. */
    const char *process;                /* Its process's name, or NULL. */
    const char *node;                   /* Or NULL. */
    const char *version;                /* kernel_delay's. */
    const struct kd_trace_stacks *stacks;   /* Or NULL: no frames. */
};

/* Appends the trace of 'in' to 'ds': one JSON object. */
void kd_trace_write(struct kd_ds *ds, const struct kd_trace_input *in);

/* The records of a ring of 'size' records (a power of 2), 'written' so
 * far, 'ring' as the kernel keeps it, oldest first into 'out' (room for
 * 'size').  Returns how many; '*lost': the older ones overwritten. */
size_t kd_trace_ring_order(const struct kd_trace_rec *ring, uint32_t size,
                           uint64_t written, struct kd_trace_rec *out,
                           uint64_t *lost);

/* The trace's file name, from the node (or "-"), the interval's PID, TID
 * and start on the wall clock, in UTC:
 * "kernel_delay-NODE-PID-TID-20261124T112646.833521Z.json", with what is
 * not [A-Za-z0-9._] in NODE as '_'.  Free it. */
char *kd_trace_file_name(const char *node, const struct kd_gap *gap);

#endif /* trace.h */
