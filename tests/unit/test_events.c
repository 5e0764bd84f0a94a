/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Unit tests of src/events.c that read no ring buffer: the events of a
 * sample, as they arrive, kept in order. */

#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "check.h"

static void
test_event_state(void)
{
    struct kd_event_state st;
    struct kd_event e = { .ts = 200, .tid = 7, .id = KD_EVENT_SYSCALL,
                          .entry_ts = 100, .syscall = 39,
                          .user_stack_id = 4, .kernel_stack_id = -14 };

    memset(&st, 0, sizeof st);
    for (int i = 0; i < 5000; i++) {
        kd_event_state_update(&st, &e);
    }
    CHECK_UINT(st.n_syscalls, 5000);
    CHECK_UINT(st.syscalls[4999].entry_ts, 100);
    CHECK_UINT(st.syscalls[4999].exit_ts, 200);
    CHECK_UINT(st.syscalls[0].tid, 7);
    CHECK_UINT(st.syscalls[0].syscall, 39);
    CHECK_INT(st.syscalls[0].user_stack_id, 4);
    CHECK_INT(st.syscalls[0].kernel_stack_id, -14);
    CHECK_UINT(st.n_starts, 0);

    e.id = KD_EVENT_START_TRIGGER;
    e.ts = 1000;
    kd_event_state_update(&st, &e);
    e.id = KD_EVENT_STOP_TRIGGER;
    e.ts = 3000;
    kd_event_state_update(&st, &e);
    CHECK_UINT(st.n_starts, 1);
    CHECK_UINT(st.n_stops, 1);
    CHECK_UINT(st.start_ts, 1000);
    CHECK_UINT(st.stop_ts, 3000);
    CHECK_UINT(st.n_syscalls, 5000);
    free(st.syscalls);
}

/* Long poll intervals are kept whole, in arrival order, however many. */
static void
test_event_state_gaps(void)
{
    struct kd_event_state st;
    struct kd_gap_event ev;

    memset(&st, 0, sizeof st);
    memset(&ev, 0, sizeof ev);
    ev.head.id = KD_EVENT_LONG_POLL;
    ev.detail.n_ran = 3;
    for (uint32_t i = 0; i < 100; i++) {
        ev.head.tid = i;
        ev.acct.v[KD_ACCT_READY] = i * 1000;
        kd_event_state_add_gap(&st, &ev);
    }
    CHECK_UINT(st.n_gaps, 100);
    CHECK_UINT(st.gaps[0].head.tid, 0);
    CHECK_UINT(st.gaps[99].head.tid, 99);
    CHECK_UINT(st.gaps[99].acct.v[KD_ACCT_READY], 99000);
    CHECK_UINT(st.gaps[50].detail.n_ran, 3);
    CHECK_UINT(st.n_syscalls, 0);
    free(st.gaps);
}

/* A ring sent with interval (tid, end ns) 'ts': its head, then one
 * record. */
static void
add_trace(struct kd_event_state *st, uint32_t tid, uint64_t ts)
{
    unsigned char buf[sizeof(struct kd_trace_head)
                      + sizeof(struct kd_trace_rec)];
    struct kd_trace_head h = {
        .head = { .ts = ts, .tid = tid, .id = KD_EVENT_TRACE },
        .written = 1, .size = 1,
    };

    memset(buf, 0, sizeof buf);
    memcpy(buf, &h, sizeof h);
    kd_event_state_add_trace(st, buf, sizeof buf);
}

/* The rings sent with the intervals: each taken with its interval, those
 * before it forgotten (their intervals were not reported); the oldest
 * forgotten beyond KD_EVENTS_TRACES. */
static void
test_event_state_traces(void)
{
    struct kd_event_state st;
    struct kd_trace_sent sent;
    struct kd_trace_head h;

    memset(&st, 0, sizeof st);
    add_trace(&st, 1, 100);
    add_trace(&st, 2, 200);
    add_trace(&st, 3, 300);
    CHECK(!kd_event_state_take_trace(&st, 2, 100, &sent));
    CHECK(kd_event_state_take_trace(&st, 2, 200, &sent));
    CHECK_UINT(sent.size, sizeof h + sizeof(struct kd_trace_rec));
    memcpy(&h, sent.data, sizeof h);
    CHECK_UINT(h.head.tid, 2);
    free(sent.data);
    CHECK_UINT(st.n_traces, 1);
    CHECK(!kd_event_state_take_trace(&st, 1, 100, &sent));
    for (int i = 0; i < KD_EVENTS_TRACES + 5; i++) {
        add_trace(&st, 10 + i, 1000 + i);
    }
    CHECK_UINT(st.n_traces, KD_EVENTS_TRACES);
    CHECK(!kd_event_state_take_trace(&st, 3, 300, &sent));
    CHECK(!kd_event_state_take_trace(&st, 14, 1004, &sent));
    CHECK(kd_event_state_take_trace(&st, 15, 1005, &sent));
    free(sent.data);
    for (size_t i = 0; i < st.n_traces; i++) {
        free(st.traces[i].data);
    }
    free(st.traces);
}

static const struct test tests[] = {
    TEST(test_event_state),
    TEST(test_event_state_gaps),
    TEST(test_event_state_traces),
};

CHECK_SUITE(events, tests)
