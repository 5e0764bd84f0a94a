/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#include "events.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <poll.h>
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

static int
kd_events_cb(void *ctx, void *data, size_t size)
{
    struct kd_events *events = ctx;
    struct kd_event event;

    if (size < sizeof event) {
        return 0;
    }
    memcpy(&event, data, sizeof event);
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

static uint64_t
kd_monotonic_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

int
kd_events_wait(struct kd_events *events, uint64_t deadline_ns,
               const sigset_t *unblocked)
{
    struct pollfd pfd = {
        .fd = ring_buffer__epoll_fd(events->rb),
        .events = POLLIN,
    };
    struct timespec ts, *tsp = NULL;
    int n;

    if (deadline_ns) {
        uint64_t now = kd_monotonic_ns();
        uint64_t left = deadline_ns > now ? deadline_ns - now : 0;

        ts.tv_sec = left / 1000000000ull;
        ts.tv_nsec = left % 1000000000ull;
        tsp = &ts;
    }
    n = ppoll(&pfd, 1, tsp, unblocked);
    if (n < 0 && errno == EINTR) {
        ring_buffer__consume(events->rb);
        return EINTR;
    } else if (n < 0) {
        return errno;
    }
    return ring_buffer__consume(events->rb) < 0 ? EIO : 0;
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
}
