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

static int
kd_events_cb(void *ctx, void *data, size_t size)
{
    struct kd_events *events = ctx;
    struct kd_event event;

    if (size < sizeof event) {
        return 0;
    }
    memcpy(&event, data, sizeof event);
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
}
