/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_EVENTS_H
#define KD_EVENTS_H 1

#include <signal.h>
#include <stdbool.h>
#include <time.h>
#include <stdint.h>

#include "kd_abi.h"

/* Events from the eBPF program's ring buffer: struct kd_event, enum
 * kd_event_id (kd_abi.h). */

/* One syscall event, as kept until it is reported. */
struct kd_syscall_event {
    uint64_t entry_ts;
    uint64_t exit_ts;
    uint32_t tid;
    uint32_t syscall;
    int32_t user_stack_id;
    int32_t kernel_stack_id;
};

/* A thread's ring as sent before its long poll interval (--trace-dir,
 * KD_EVENT_TRACE): a struct kd_trace_head, then the records. */
struct kd_trace_sent {
    void *data;
    size_t size;
};

/* The rings kept at most, waiting for their intervals. */
#define KD_EVENTS_TRACES 64

/* What the events said so far. */
struct kd_event_state {
    uint64_t start_ts;      /* Time of the last start trigger, 0: none. */
    uint64_t stop_ts;       /* Time of the last stop trigger, 0: none. */
    uint64_t n_starts;      /* Start triggers seen. */
    uint64_t n_stops;       /* Stop triggers seen. */

    /* Syscall events of the current sample, in arrival order. */
    struct kd_syscall_event *syscalls;
    size_t n_syscalls;
    size_t allocated;

    /* Long poll intervals not yet reported, in arrival order. */
    struct kd_gap_event *gaps;
    size_t n_gaps;
    size_t allocated_gaps;

    /* The rings sent before the intervals, as they came. */
    struct kd_trace_sent *traces;
    size_t n_traces;
};

struct ring_buffer;

struct kd_events {
    struct ring_buffer *rb;
    struct kd_event_state state;
};

/* Opens the consumer of ring buffer map 'map_fd'.  Returns 0 or a
 * positive errno. */
int kd_events_open(struct kd_events *, int map_fd);

/* The file descriptor that is readable when events come, for poll(). */
int kd_events_fd(const struct kd_events *);

/* Consumes every event there is, without waiting.  Returns how many, or
 * -1 on error. */
int kd_events_consume(struct kd_events *);

void kd_events_close(struct kd_events *);

/* Consumes the events waiting in the ring buffer, without waiting. */
void kd_events_drain(struct kd_events *);

/* Forgets the syscall events kept so far (keeping the memory). */
void kd_events_clear_syscalls(struct kd_events *);

/* Records 'event' into 'state'.  Exposed for the unit tests. */
void kd_event_state_update(struct kd_event_state *,
                           const struct kd_event *);

/* Records long poll interval 'event' into 'state'.  Exposed for the unit
 * tests. */
void kd_event_state_add_gap(struct kd_event_state *,
                            const struct kd_gap_event *);

/* Keeps a copy of the 'size' bytes of ring 'data' in 'state' (the oldest
 * forgotten beyond KD_EVENTS_TRACES).  Exposed for the unit tests. */
void kd_event_state_add_trace(struct kd_event_state *, const void *data,
                              size_t size);

/* Takes out of 'state' the ring sent with the interval of thread 'tid'
 * that ended at 'end_ns' into '*sent' (the caller frees its data), and
 * forgets those sent before it (their intervals came first, and were not
 * reported).  Returns false if there is none. */
bool kd_event_state_take_trace(struct kd_event_state *, uint32_t tid,
                               uint64_t end_ns, struct kd_trace_sent *sent);

#endif /* events.h */
