/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* --trace-dir: the history of the thread of a long poll interval, as the
 * capture has it. */

#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture_priv.h"
#include "gap.h"
#include "trace.h"
#include "util.h"

/* The records of a ring of 'size' records, 'written' so far, at 'ring',
 * oldest first into a new '*recs'. */
static size_t
kd_capture_trace_order(const struct kd_trace_rec *ring, uint32_t size,
                       uint64_t written, struct kd_trace_rec **recs,
                       uint64_t *lost)
{
    *recs = kd_xcalloc(size ? size : 1, sizeof **recs);
    return kd_trace_ring_order(ring, size, written, *recs, lost);
}

/* The ring sent before interval 'gap' (it ended). */
static int
kd_capture_trace_sent(struct kd_capture *c, const struct kd_gap *gap,
                      struct kd_trace_rec **recs, size_t *n, uint64_t *lost,
                      char **error)
{
    struct kd_trace_sent sent;
    struct kd_trace_head h;
    int err = 0;

    if (!c->with_events
        || !kd_event_state_take_trace(&c->events.state, gap->tid,
                                      gap->end_ns, &sent)) {
        return ENOENT;
    }
    memcpy(&h, sent.data, sizeof h);
    if (!h.size || (h.size & (h.size - 1))
        || sent.size < sizeof h + (size_t) h.size * sizeof **recs) {
        *error = kd_xasprintf("A thread's history of %zu bytes for %u "
                              "records: not what the program sends",
                              sent.size, h.size);
        err = EPROTO;
    } else {
        *n = kd_capture_trace_order((const struct kd_trace_rec *)
                                    ((const char *) sent.data + sizeof h),
                                    h.size, h.written, recs, lost);
    }
    free(sent.data);
    return err;
}

/* The ring of the thread of 'gap', in progress, read from the map. */
static int
kd_capture_trace_read(struct kd_capture *c, const struct kd_gap *gap,
                      struct kd_trace_rec **recs, size_t *n, uint64_t *lost,
                      char **error)
{
    uint32_t size = c->needs.trace_history, tid = gap->tid;
    size_t bytes = sizeof(uint64_t) + (size_t) size * sizeof **recs;
    int fd = kd_program_map_fd(&c->prog, "trace_hist");
    unsigned char *buf = kd_xmalloc(bytes);
    uint64_t written;
    int err = 0;

    if (fd < 0) {
        err = ENOENT;
    } else if (bpf_map_lookup_elem(fd, &tid, buf)) {
        err = errno;
        if (err != ENOENT) {
            *error = kd_xasprintf("Failed to read eBPF map 'trace_hist': "
                                  "%s", strerror(err));
        }
    } else {
        memcpy(&written, buf, sizeof written);
        *n = kd_capture_trace_order((const struct kd_trace_rec *)
                                    (buf + sizeof written), size, written,
                                    recs, lost);
    }
    free(buf);
    return err;
}

int
kd_capture_trace_history(struct kd_capture *c, const struct kd_gap *gap,
                         struct kd_trace_rec **recs, size_t *n,
                         uint64_t *lost, char **error)
{
    *recs = NULL;
    *n = 0;
    *lost = 0;
    *error = NULL;
    if (!c->needs.trace) {
        return ENOENT;
    }
    return gap->in_progress
           ? kd_capture_trace_read(c, gap, recs, n, lost, error)
           : kd_capture_trace_sent(c, gap, recs, n, lost, error);
}
