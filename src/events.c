/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* The ring buffer's consumer: syscall, trigger and long poll events. */

#include "events.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>

#include "util.h"

void
kd_event_state_update(struct kd_event_state *state,
                      const struct kd_event *event)
{
    switch (event->id) {
    case KD_EVENT_START_TRIGGER:
        state->start_ts = event->ts;
        state->n_starts++;
        break;
    case KD_EVENT_STOP_TRIGGER:
        state->stop_ts = event->ts;
        state->n_stops++;
        break;
    case KD_EVENT_SYSCALL:
        if (state->n_syscalls == state->allocated) {
            state->allocated = state->allocated ? state->allocated * 2
                                                : 4096;
            state->syscalls = kd_xreallocarray(state->syscalls,
                                               state->allocated,
                                               sizeof *state->syscalls);
        }
        state->syscalls[state->n_syscalls++] = (struct kd_syscall_event) {
            .entry_ts = event->entry_ts,
            .exit_ts = event->ts,
            .tid = event->tid,
            .syscall = event->syscall,
            .user_stack_id = event->user_stack_id,
            .kernel_stack_id = event->kernel_stack_id,
        };
        break;
    default:
        break;
    }
}

void
kd_event_state_add_gap(struct kd_event_state *state,
                       const struct kd_gap_event *event)
{
    if (state->n_gaps == state->allocated_gaps) {
        state->allocated_gaps = state->allocated_gaps
                                ? state->allocated_gaps * 2 : 16;
        state->gaps = kd_xreallocarray(state->gaps, state->allocated_gaps,
                                       sizeof *state->gaps);
    }
    state->gaps[state->n_gaps++] = *event;
}

void
kd_event_state_add_trace(struct kd_event_state *state, const void *data,
                         size_t size)
{
    struct kd_trace_sent *t;

    if (state->n_traces == KD_EVENTS_TRACES) {
        free(state->traces[0].data);
        memmove(state->traces, state->traces + 1,
                --state->n_traces * sizeof *state->traces);
    }
    state->traces = kd_xreallocarray(state->traces, state->n_traces + 1,
                                     sizeof *state->traces);
    t = &state->traces[state->n_traces++];
    t->data = kd_xmalloc(size);
    t->size = size;
    memcpy(t->data, data, size);
}

bool
kd_event_state_take_trace(struct kd_event_state *state, uint32_t tid,
                          uint64_t end_ns, struct kd_trace_sent *sent)
{
    for (size_t i = 0; i < state->n_traces; i++) {
        struct kd_trace_head h;

        memcpy(&h, state->traces[i].data, sizeof h);
        if (h.head.tid != tid || h.head.ts != end_ns) {
            continue;
        }
        *sent = state->traces[i];
        for (size_t j = 0; j < i; j++) {
            free(state->traces[j].data);
        }
        state->n_traces -= i + 1;
        memmove(state->traces, state->traces + i + 1,
                state->n_traces * sizeof *state->traces);
        return true;
    }
    return false;
}

static int
kd_events_cb(void *ctx, void *data, size_t size)
{
    struct kd_events *events = ctx;
    struct kd_event event;

    if (size < sizeof event) {
        return 0;
    }
    memcpy(&event, data, sizeof event);
    if (event.id == KD_EVENT_TRACE) {
        if (size >= sizeof(struct kd_trace_head)) {
            kd_event_state_add_trace(&events->state, data, size);
        }
        return 0;
    }
    if (event.id == KD_EVENT_LONG_POLL) {
        struct kd_gap_event gap;

        if (size >= sizeof gap) {
            memcpy(&gap, data, sizeof gap);
            kd_event_state_add_gap(&events->state, &gap);
        }
        return 0;
    }
    kd_event_state_update(&events->state, &event);
    return 0;
}

int
kd_events_open(struct kd_events *events, int map_fd)
{
    memset(events, 0, sizeof *events);
    events->rb = ring_buffer__new(map_fd, kd_events_cb, events, NULL);
    return events->rb ? 0 : (errno ? errno : EINVAL);
}

int
kd_events_fd(const struct kd_events *events)
{
    return ring_buffer__epoll_fd(events->rb);
}

int
kd_events_consume(struct kd_events *events)
{
    int n = ring_buffer__consume(events->rb);

    return n < 0 ? -1 : n;
}

void
kd_events_drain(struct kd_events *events)
{
    ring_buffer__consume(events->rb);
}

void
kd_events_clear_syscalls(struct kd_events *events)
{
    events->state.n_syscalls = 0;
}

void
kd_events_close(struct kd_events *events)
{
    ring_buffer__free(events->rb);
    events->rb = NULL;
    free(events->state.syscalls);
    events->state.syscalls = NULL;
    events->state.n_syscalls = events->state.allocated = 0;
    free(events->state.gaps);
    events->state.gaps = NULL;
    events->state.n_gaps = events->state.allocated_gaps = 0;
    for (size_t i = 0; i < events->state.n_traces; i++) {
        free(events->state.traces[i].data);
    }
    free(events->state.traces);
    events->state.traces = NULL;
    events->state.n_traces = 0;
}
