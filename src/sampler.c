/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* The sampling loop and the watch loop of --long-poll-events. */

#include "sampler.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capture.h"
#include "evidence.h"
#include "stackmaps.h"
#include "gap.h"
#include "metrics.h"
#include "options.h"
#include "output.h"
#include "snapshot.h"
#include "stacks.h"
#include "symbols.h"
#include "target.h"
#include "util.h"
#include "waiter.h"

/* Updates the status line with 'st', whose wait started at 'since' (and
 * the target's threads, counted once per second of it). */
static void
kd_sampler_status(const struct kd_sampler *s, struct kd_status *st,
                  uint64_t since)
{
    uint64_t elapsed = kd_now_ns() - since;

    if (!st->tgid || elapsed / 1000000000 != st->elapsed_ns / 1000000000) {
        st->tgid = kd_capture_tgid(s->capture);
        st->n_threads = kd_target_count_threads(NULL, st->tgid);
    }
    st->elapsed_ns = elapsed;
    s->output->status(s->output, st);
}

/* The unwind tables kept up to date with the target's mappings; an error
 * is said, and the run goes on (stacks through new mappings are cut). */
static void
kd_sampler_refresh(const struct kd_sampler *s)
{
    char *error = NULL;

    if (kd_capture_refresh(s->capture, &error)) {
        kd_output_error(s->output, "%s\n", error);
    }
    free(error);
}

/* Reads the sample that just ended and reports it (or that it is
 * skipped).  Returns 0 or a positive errno. */
static int
kd_sampler_dump(const struct kd_sampler *s, const struct kd_window *window)
{
    const struct kd_options *o = s->options;
    uint64_t start, cpu_start;
    struct kd_snapshot snap;
    char *error = NULL;
    int err;

    start = kd_now_ns();
    cpu_start = kd_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    err = kd_snapshot_take(&snap, s->capture, window, &error);
    if (err) {
        kd_output_error(s->output, "%s\n", error);
        free(error);
        kd_snapshot_destroy(&snap);
        return err;
    }
    kd_snapshot_resolve(&snap, s->filter);
    s->output->sample(s->output, &snap);
    if (o->debug && !window->skipped) {
        fprintf(stderr, "kernel_delay: sample of %zu threads read and "
                "reported in %.3f ms (%.3f ms of CPU)\n",
                snap.sample.n_threads, (kd_now_ns() - start) / 1e6,
                (kd_clock_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu_start) / 1e6);
    }
    kd_snapshot_destroy(&snap);
    return 0;
}

/* Starts a sample now, without a start trigger. */
static int
kd_sampler_start(const struct kd_sampler *s, struct kd_window *window)
{
    int err = kd_capture_set(s->capture, KD_CAPTURE_ON);

    if (err) {
        kd_output_error(s->output, "Failed to start capturing: %s\n",
                        strerror(err));
        return err;
    }
    window->start_ns = kd_now_ns();
    clock_gettime(CLOCK_REALTIME, &window->start_wall);
    s->output->sample_start(s->output, window);
    return 0;
}

/* Waits, with the capture on or armed, until the sample ends: at
 * 'deadline' (0: none; set when the start trigger starts the sample), on
 * the stop trigger ('*by_stop'), a signal or the target's exit.  Sets
 * '*started' when the start trigger starts the sample.  Returns 0 or a
 * positive errno. */
static int
kd_sampler_wait(const struct kd_sampler *s, struct kd_window *window,
                uint64_t deadline, bool *started, bool *by_stop)
{
    const struct kd_event_state *ev = kd_capture_event_state(s->capture);
    struct kd_events *events = kd_capture_events(s->capture);
    const struct kd_options *o = s->options;
    uint64_t n_starts = ev->n_starts, n_stops = ev->n_stops;
    struct kd_status st = { .trigger = o->start_trigger };
    uint64_t stopped_at = 0, state, since = kd_now_ns();

    while (!kd_waiter_done(s->waiter)
           && (!deadline || kd_now_ns() < deadline)) {
        /* Wakes up at least every 100 ms, to look at the capture state. */
        uint64_t wake = kd_now_ns() + 100000000ull;
        int err;

        if (!*started) {
            kd_sampler_status(s, &st, since);
        }
        err = kd_wait(s->waiter, events,
                      deadline && deadline < wake ? deadline : wake);
        kd_sampler_refresh(s);

        if (err) {
            kd_output_error(s->output, "Failed to read eBPF events: %s\n",
                            strerror(err));
            return err;
        }
        if (!*started && ev->n_starts != n_starts) {
            *started = true;
            window->start_ns = window->start_trigger_ns = ev->start_ts;
            clock_gettime(CLOCK_REALTIME, &window->start_wall);
            s->output->sample_start(s->output, window);
            if (!o->stop_trigger) {
                deadline = kd_now_ns() + o->sample_time * 1e9;
            }
        }
        if (ev->n_stops != n_stops) {
            *by_stop = true;
            break;
        }
        /* A stop trigger whose event was lost (ring buffer full) still
         * stopped the capture.  Its event follows the state change
         * closely, so only conclude it was lost when the next wake-up, up
         * to 100 ms later, still brings no event. */
        if (o->stop_trigger && *started
            && !kd_capture_get(s->capture, &state)
            && state == KD_CAPTURE_STOPPED) {
            if (stopped_at && kd_now_ns() - stopped_at > 50000000ull) {
                break;
            }
            if (!stopped_at) {
                stopped_at = kd_now_ns();
            }
        }
    }
    return 0;
}

/* Ends the sample that started: stops the capture, lets the eBPF programs
 * that still saw it on finish (they run for microseconds, with preemption
 * off) and reads the last events, then completes 'window'. */
static void
kd_sampler_stop(const struct kd_sampler *s, struct kd_window *window,
                bool by_stop)
{
    const struct kd_event_state *ev = kd_capture_event_state(s->capture);
    struct kd_events *events = kd_capture_events(s->capture);
    struct timespec quiesce = { .tv_sec = 0, .tv_nsec = 2000000 };

    kd_capture_set(s->capture, KD_CAPTURE_STOPPED);
    window->stop_ns = kd_now_ns();
    clock_gettime(CLOCK_REALTIME, &window->stop_wall);
    nanosleep(&quiesce, NULL);
    if (events) {
        /* The events sent before the stop. */
        kd_events_drain(events);
    }
    if (by_stop) {
        window->stop_ns = window->stop_trigger_ns = ev->stop_ts;
    }

    /* The stop-start delta, when both triggers made this sample. */
    if (window->start_trigger_ns && by_stop
        && ev->stop_ts > window->start_trigger_ns) {
        window->delta_ns = ev->stop_ts - window->start_trigger_ns;
    }
    window->skipped = window->delta_ns
                      && window->delta_ns < s->options->trigger_delta;
    window->target_exited = s->waiter->target_exited;
    s->output->sample_stop(s->output, window);
}

/* Takes one sample, reports it, and re-arms the capture.  Sets '*done'
 * when the sample counts, '*last' when the loop is over.  Returns 0 or a
 * positive errno. */
static int
kd_sampler_one(const struct kd_sampler *s, unsigned int index, bool *done,
               bool *last)
{
    const struct kd_options *o = s->options;
    struct kd_window window = { .index = index };
    bool started = !o->start_trigger, by_stop = false;
    uint64_t deadline = 0, since = kd_now_ns();
    int err;

    if (started) {
        err = kd_sampler_start(s, &window);
        if (err) {
            return err;
        }
        if (!o->stop_trigger) {
            deadline = kd_now_ns() + o->sample_time * 1e9;
        }
    }
    err = kd_sampler_wait(s, &window, deadline, &started, &by_stop);
    if (err || !started) {
        /* Without a start, there is no sample to report. */
        if (!err && s->waiter->target_exited) {
            s->output->exited(s->output, kd_capture_tgid(s->capture),
                              true);
        } else if (!err) {
            s->output->wait_end(s->output, o->start_trigger,
                                kd_now_ns() - since);
        }
        *last = true;
        return err;
    }
    kd_sampler_stop(s, &window, by_stop);
    err = kd_sampler_dump(s, &window);
    if (err) {
        return err;
    }
    *done = !window.skipped;
    if (window.target_exited) {
        s->output->exited(s->output, kd_capture_tgid(s->capture), false);
        *last = true;
        return 0;
    }

    /* Re-arm at once: a start trigger that fires while the report is
     * printed is a missed sample. */
    err = kd_capture_set(s->capture, KD_CAPTURE_IDLE);
    if (err) {
        kd_output_error(s->output, "Failed to re-arm the capture: %s\n",
                        strerror(err));
    }
    return err;
}

/* CLOCK_REALTIME - CLOCK_MONOTONIC, now. */
static int64_t
kd_sampler_mono_to_wall_ns(void)
{
    return (int64_t) kd_clock_ns(CLOCK_REALTIME) - (int64_t) kd_now_ns();
}

/* Brings what the capture lost up to date (kd_capture_total_losses()). */
static void
kd_sampler_watch_losses(const struct kd_sampler *s)
{
    struct kd_losses losses;
    char *error = NULL;

    if (kd_capture_take_losses(s->capture, &losses, &error)) {
        kd_output_error(s->output, "%s\n", error);
        free(error);
    }
    kd_losses_destroy(&losses);
}

/* The counts of map profile_counts (--profile-hz), read at most once per
 * report of a batch of intervals. */
struct kd_profile_counts {
    bool read;
    struct kd_profile_count *v;
    size_t n;
};

/* The stacks of the profile's map, for kd_stacks_resolve(). */
static size_t
kd_sampler_read_stack(void *capture, int32_t id, bool user, uint64_t *ips,
                      uint32_t *end)
{
    return kd_stackmaps_stack(capture, true, id, user, ips, end);
}

/* Gives 'gap', decoded from 'ev', its on-CPU profile and where it slept,
 * frames resolved, from 'counts' (read first if need be). */
static void
kd_sampler_gap_profile(const struct kd_sampler *s,
                       struct kd_symbols *symbols,
                       struct kd_profile_counts *counts,
                       const struct kd_gap_event *ev, struct kd_gap *gap)
{
    struct kd_stack_source source = {
        .read = kd_sampler_read_stack,
        .aux = s->capture,
    };

    if ((s->options->profile_hz || s->options->off_cpu) && !counts->read) {
        char *error = NULL;

        counts->read = true;
        if (kd_stackmaps_counts(s->capture, &counts->v, &counts->n,
                                      &error)) {
            kd_output_error(s->output, "%s\n", error);
        }
        free(error);
    }
    kd_stacks_resolve(gap, ev, s->options->profile_hz, s->options->off_cpu,
                      counts->v, counts->n, &source, symbols);
}

/* Reports the long poll intervals the events brought, those of the
 * threads the filter keeps, until '*reported' reaches 'limit'. */
static void
kd_sampler_watch_report(const struct kd_sampler *s,
                        struct kd_symbols *symbols, unsigned int *reported,
                        unsigned int limit, uint64_t *longest)
{
    struct kd_event_state *ev = &kd_capture_events(s->capture)->state;
    int64_t offset = kd_sampler_mono_to_wall_ns();
    struct kd_profile_counts counts = { .read = false };
    bool warned = false;

    for (size_t i = 0; i < ev->n_gaps && *reported < limit; i++) {
        struct kd_gap gap;

        kd_gap_decode(&ev->gaps[i], offset, *reported + 1, &gap);
        if (!kd_thread_filter_match(s->filter, gap.tid, gap.name)) {
            continue;
        }
        if (!warned) {
            kd_sampler_watch_losses(s);
        }
        warned = true;
        ++*reported;
        if (kd_gap_ns(&gap) > *longest) {
            *longest = kd_gap_ns(&gap);
        }
        kd_sampler_gap_profile(s, symbols, &counts, &ev->gaps[i], &gap);
        s->output->long_poll(s->output, &gap,
                             kd_capture_total_losses(s->capture));
        kd_evidence_interval(s->evidence, s->capture, symbols, &gap);
        kd_gap_destroy(&gap);
    }
    ev->n_gaps = 0;
    free(counts.v);
}

/* Intervals still going on (--long-poll-events): each one is reported
 * once it is longer than the threshold (but not before it is
 * KD_PROGRESS_MIN_NS long, the period of the scan), again each time its
 * length doubles, and at the end of the run; the report of its end comes
 * as for any interval. */
#define KD_PROGRESS_MIN_NS 100000000ull

struct kd_open_gap {
    uint32_t tid;
    uint64_t start_ns;
    uint64_t next_ns;           /* Its length at its next report. */
    bool seen;                  /* Still going on at the last scan. */
};

struct kd_open_gaps {
    struct kd_open_gap *v;
    size_t n, allocated;
};

/* The entry of the interval of thread 'tid' that began at 'start_ns',
 * created (or renewed, for a new interval of that thread) as due at
 * 'first_ns'. */
static struct kd_open_gap *
kd_open_gap_find(struct kd_open_gaps *open, uint32_t tid, uint64_t start_ns,
                 uint64_t first_ns)
{
    struct kd_open_gap *g = NULL;

    for (size_t i = 0; i < open->n && !g; i++) {
        if (open->v[i].tid == tid) {
            g = &open->v[i];
        }
    }
    if (!g) {
        if (open->n == open->allocated) {
            open->allocated = open->allocated ? 2 * open->allocated : 16;
            open->v = kd_xreallocarray(open->v, open->allocated,
                                       sizeof *open->v);
        }
        g = &open->v[open->n++];
        g->tid = tid;
        g->start_ns = 0;
    }
    if (g->start_ns != start_ns) {
        g->start_ns = start_ns;
        g->next_ns = first_ns;
    }
    g->seen = true;
    return g;
}

/* Reports the intervals going on that are due ('last': all of them, at
 * the end of the run), and forgets those that ended. */
static void
kd_sampler_watch_progress(const struct kd_sampler *s,
                          struct kd_symbols *symbols,
                          struct kd_open_gaps *open, bool last)
{
    const struct kd_options *o = s->options;
    uint64_t first = o->long_poll_ns > KD_PROGRESS_MIN_NS
                     ? o->long_poll_ns : KD_PROGRESS_MIN_NS;
    int64_t offset = kd_sampler_mono_to_wall_ns();
    struct kd_profile_counts counts = { .read = false };
    uint64_t now = kd_now_ns();
    struct kd_gap_event *events;
    char *error = NULL;
    size_t n, kept = 0;

    if (kd_capture_open_gaps(s->capture, now, o->long_poll_ns, &events, &n,
                             &error)) {
        kd_output_error(s->output, "%s\n", error);
        free(error);
        return;
    }
    for (size_t i = 0; i < open->n; i++) {
        open->v[i].seen = false;
    }
    for (size_t i = 0; i < n; i++) {
        struct kd_gap_event *ev = &events[i];
        struct kd_open_gap *g = kd_open_gap_find(open, ev->head.tid,
                                                 ev->start_ns, first);
        uint64_t span = now - ev->start_ns;
        char path[64], *comm = NULL;
        struct kd_gap gap;

        if (span < g->next_ns && !last) {
            continue;
        }
        while (g->next_ns <= span) {
            g->next_ns *= 2;
        }
        snprintf(path, sizeof path, "/proc/%u/task/%u/comm", ev->pid,
                 ev->head.tid);
        if (!kd_read_file_line(path, &comm)) {
            size_t len = strlen(comm);

            memcpy(ev->comm, comm,
                   len < sizeof ev->comm ? len : sizeof ev->comm);
            free(comm);
        }
        kd_gap_decode(ev, offset, 0, &gap);
        if (kd_thread_filter_match(s->filter, gap.tid, gap.name)) {
            kd_sampler_gap_profile(s, symbols, &counts, ev, &gap);
            s->output->long_poll(s->output, &gap,
                                 kd_capture_total_losses(s->capture));
            kd_evidence_interval(s->evidence, s->capture, symbols, &gap);
            kd_gap_destroy(&gap);
        }
    }
    for (size_t i = 0; i < open->n; i++) {
        if (open->v[i].seen) {
            open->v[kept++] = open->v[i];
        }
    }
    open->n = kept;
    free(events);
    free(counts.v);
}

/* Whether 'period' ns have passed since '*last' (0: never), which then
 * becomes now. */
static bool
kd_sampler_due(uint64_t *last, uint64_t period)
{
    uint64_t now = kd_now_ns();

    if (*last && now - *last < period) {
        return false;
    }
    *last = now;
    return true;
}

/* --profile-hz: lets the stacks that no interval holds go, every 100 ms
 * ('*last': when it last did). */
static void
kd_sampler_profile_sweep(const struct kd_sampler *s, uint64_t *last)
{
    char *error = NULL;

    if (!kd_sampler_due(last, 100000000ull)) {
        return;
    }
    if (kd_stackmaps_sweep(s->capture, &error)) {
        kd_output_error(s->output, "%s\n", error);
    }
    free(error);
}

/* --metrics: what the capture lost, brought up to date once a second
 * ('*last': when it last was), as no interval may come to say it. */
static void
kd_sampler_metrics_losses(const struct kd_sampler *s, uint64_t *last)
{
    if (!s->output->metrics || !kd_sampler_due(last, 1000000000ull)) {
        return;
    }
    kd_sampler_watch_losses(s);
    kd_metrics_set_losses(s->output->metrics,
                          kd_capture_total_losses(s->capture));
}

/* --long-poll-events: capture from now on, with no pause, and report each
 * long poll interval as its event comes, until a signal, the target's exit
 * or --sample-count intervals.  Returns 0 or a positive errno. */
static int
kd_sampler_watch(struct kd_sampler *s)
{
    const struct kd_options *o = s->options;
    unsigned int limit = o->sample_count_set ? o->sample_count : UINT_MAX;
    struct kd_events *events = kd_capture_events(s->capture);
    struct kd_status st = { .trigger = NULL };
    struct kd_open_gaps open = { .v = NULL };
    struct kd_symbols symbols;
    uint64_t since = kd_now_ns(), swept = since, counted = since;
    uint64_t progressed = 0;
    unsigned int *reported = &s->reported;
    int err;

    err = kd_capture_set(s->capture, KD_CAPTURE_ON);
    if (err) {
        kd_output_error(s->output, "Failed to start capturing: %s\n",
                        strerror(err));
        return err;
    }
    s->output->watch_start(s->output, o->long_poll_ns);
    kd_symbols_init(&symbols, kd_capture_tgid(s->capture));

    /* Wakes up at least every 100 ms: the eBPF side wakes it for the
     * first of a flood of intervals only (KD_GAP_WAKEUP_NS). */
    while (!kd_waiter_done(s->waiter) && *reported < limit) {
        st.n_intervals = *reported;
        kd_sampler_status(s, &st, since);
        err = kd_wait(s->waiter, events, kd_now_ns() + 100000000ull);
        if (err) {
            kd_output_error(s->output, "Failed to read eBPF events: %s\n",
                            strerror(err));
            break;
        }
        kd_sampler_watch_report(s, &symbols, reported, limit,
                                &st.longest_ns);
        /* Every 100 ms, not at each wake-up: a scrape of --metrics
         * wakes the loop several times, and each read of the threads'
         * entries costs (figure 8 of 'make bench'). */
        if (*reported < limit && kd_sampler_due(&progressed, 100000000ull)) {
            kd_sampler_watch_progress(s, &symbols, &open, false);
        }
        kd_sampler_profile_sweep(s, &swept);
        kd_sampler_metrics_losses(s, &counted);
        kd_sampler_refresh(s);
        kd_evidence_poll(s->evidence);
    }
    if (!err) {
        /* The intervals that ended before the signal or the exit, and
         * those still going on. */
        kd_events_drain(events);
        kd_sampler_watch_report(s, &symbols, reported, limit,
                                &st.longest_ns);
        if (*reported < limit) {
            kd_sampler_watch_progress(s, &symbols, &open, true);
        }
    }
    free(open.v);
    kd_symbols_destroy(&symbols);
    kd_output_status_clear(s->output);
    kd_capture_set(s->capture, KD_CAPTURE_STOPPED);
    s->output->watch_stop(s->output);
    kd_sampler_watch_losses(s);
    s->output->watch_end(s->output, kd_capture_tgid(s->capture),
                         kd_capture_total_losses(s->capture), *reported,
                         s->waiter->target_exited);
    return err;
}

int
kd_sampler_run(struct kd_sampler *s)
{
    const struct kd_options *o = s->options;
    unsigned int n_done = 0, index = 0;
    bool last = false;
    uint64_t since;
    int err = 0;

    if (o->long_poll) {
        return kd_sampler_watch(s);
    }

    /* Every probe is attached by now: only from here may a start trigger
     * start a sample.  Were it honoured earlier, while the stop trigger
     * was still being attached, the first sample could run from one
     * cycle's start to the next cycle's stop. */
    if (o->start_trigger) {
        err = kd_capture_set(s->capture, KD_CAPTURE_IDLE);
        if (err) {
            kd_output_error(s->output, "Failed to arm the capture: %s\n",
                            strerror(err));
            return err;
        }
    }
    since = kd_now_ns();
    while (!err && !last && n_done < o->sample_count
           && !kd_waiter_done(s->waiter)) {
        bool done = false;

        err = kd_sampler_one(s, ++index, &done, &last);
        n_done += done;
        if (!err && !last && o->sample_interval > 0
            && n_done < o->sample_count) {
            kd_wait(s->waiter, NULL,
                    kd_now_ns() + o->sample_interval * 1e9);
        }
    }
    if (!err && !index && o->start_trigger && !s->waiter->target_exited) {
        /* A signal came as soon as the capture was armed. */
        s->output->wait_end(s->output, o->start_trigger,
                            kd_now_ns() - since);
    }
    return err;
}

void
kd_sampler_final_warnings(const struct kd_sampler *s)
{
    struct kd_losses losses = KD_LOSSES_INITIALIZER;
    char *error = NULL;

    /* --long-poll-events ends with its own. */
    if (!s->options->long_poll
        && !kd_capture_take_losses(s->capture, &losses, &error)) {
        s->output->final(s->output, kd_capture_total_losses(s->capture),
                         s->options->sample_count);
    }
    free(error);
    kd_losses_destroy(&losses);
}
