/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* The evidence of long poll intervals: traces, and a command run. */

#include "evidence.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "gap.h"
#include "options.h"
#include "output.h"
#include "stackmaps.h"
#include "stacks.h"
#include "trace.h"
#include "util.h"

#ifndef KD_VERSION
#define KD_VERSION "unknown"
#endif

int
kd_evidence_init(struct kd_evidence *e, const struct kd_options *o,
                 const struct kd_output *output)
{
    char host[256] = "";
    int err;

    memset(e, 0, sizeof *e);
    e->options = o;
    e->output = output;
    gethostname(host, sizeof host - 1);
    e->node = kd_xstrdup(o->node_name ? o->node_name : host);
    e->trace = o->trace_dir != NULL;
    e->act = o->on_long_poll != NULL;
    if (e->trace) {
        kd_tracedir_init(&e->dir, o->trace_dir,
                         (uint64_t) o->trace_max_mib << 20,
                         o->trace_max_files);
        err = kd_tracedir_check(&e->dir);
        if (err) {
            char *safe = kd_xstrdup_safe(o->trace_dir);

            kd_output_error(output, "Cannot write traces in %s "
                            "(--trace-dir): %s\n", safe, strerror(err));
            free(safe);
            e->trace = false;
            kd_evidence_destroy(e);
            return err;
        }
    }
    if (e->act) {
        kd_action_init(&e->action, o->on_long_poll,
                       o->on_long_poll_period_ns, stderr);
    }
    return 0;
}

/* What the trace's stacks are read from and named with. */
struct kd_evidence_stacks {
    struct kd_capture *capture;
    struct kd_symbols *symbols;
};

static size_t
kd_evidence_read_stack(void *capture, int32_t id, bool user, uint64_t *ips,
                       uint32_t *end)
{
    return kd_stackmaps_stack(capture, true, id, user, ips, end);
}

static size_t
kd_evidence_frames(void *aux_, int32_t kstack, int32_t ustack,
                   bool tracepoint, char ***v)
{
    struct kd_evidence_stacks *aux = aux_;
    struct kd_stack_source source = {
        .read = kd_evidence_read_stack,
        .aux = aux->capture,
    };
    bool found = true;
    struct kd_frames f = kd_stacks_frames(&source, aux->symbols, kstack,
                                          ustack, tracepoint, &found);

    *v = f.v;
    return f.n;
}

/* The name of process 'pid', or NULL. */
static char *
kd_evidence_process(uint32_t pid)
{
    char path[64], *comm = NULL;

    snprintf(path, sizeof path, "/proc/%" PRIu32 "/comm", pid);
    return kd_read_file_line(path, &comm) ? NULL : comm;
}

/* The name of the trace of 'gap', in a new string: the one its reports
 * in progress were written under, if any (the wall clock of its start,
 * in the name, is computed anew at each report and may have moved). */
static char *
kd_evidence_name(struct kd_evidence *e, const struct kd_gap *gap)
{
    struct kd_evidence_name *n = NULL;
    char *name;

    for (size_t i = 0; i < e->n_names && !n; i++) {
        if (e->names[i].tid == gap->tid) {
            n = &e->names[i];
        }
    }
    if (n && n->start_ns == gap->start_ns) {
        name = kd_xstrdup(n->name);
    } else {
        name = kd_trace_file_name(e->node, gap);
    }
    if (n && !gap->in_progress) {
        /* Its end (or that of an interval never reported in progress):
         * no later report. */
        free(n->name);
        *n = e->names[--e->n_names];
    } else if (n && n->start_ns != gap->start_ns) {
        free(n->name);
        n->name = kd_xstrdup(name);
        n->start_ns = gap->start_ns;
    } else if (!n && gap->in_progress) {
        e->names = kd_xreallocarray(e->names, e->n_names + 1,
                                    sizeof *e->names);
        e->names[e->n_names++] = (struct kd_evidence_name) {
            .tid = gap->tid, .start_ns = gap->start_ns,
            .name = kd_xstrdup(name),
        };
    }
    return name;
}

/* Writes the trace of 'gap'.  Returns its path, or NULL. */
static char *
kd_evidence_trace(struct kd_evidence *e, struct kd_capture *capture,
                  struct kd_symbols *symbols, const struct kd_gap *gap)
{
    struct kd_evidence_stacks aux = { capture, symbols };
    struct kd_trace_stacks stacks = { kd_evidence_frames, &aux };
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    struct kd_trace_input in = {
        .gap = gap, .node = e->node, .version = KD_VERSION,
        .stacks = &stacks,
    };
    struct kd_trace_rec *recs;
    char *error = NULL, *name, *path = NULL, *process;
    int err;

    err = kd_capture_trace_history(capture, gap, &recs, &in.n_recs,
                                   &in.lost, &error);
    if (err && error) {
        kd_output_status_clear(e->output);
        fprintf(stderr, "kernel_delay: trace-dir: %s\n", error);
    }
    in.recs = recs;
    in.no_history = err != 0;
    process = kd_evidence_process(gap->pid);
    in.process = process;
    kd_trace_write(&ds, &in);
    name = kd_evidence_name(e, gap);
    err = kd_tracedir_write(&e->dir, name, ds.string, ds.length, &path);
    if (err) {
        kd_output_status_clear(e->output);
        fprintf(stderr, "kernel_delay: trace-dir: %s not written: %s\n",
                name, strerror(err));
    }
    kd_ds_destroy(&ds);
    free(name);
    free(process);
    free(recs);
    free(error);
    return path;
}

/* Runs the command for 'gap', whose trace is 'path' (or NULL). */
static void
kd_evidence_act(struct kd_evidence *e, const struct kd_gap *gap,
                const char *path)
{
    char *env[12], *what, *safe, start[32], end[32];
    size_t n = 0;

    env[n++] = kd_xasprintf("KD_PID=%" PRIu32, gap->pid);
    env[n++] = kd_xasprintf("KD_TID=%" PRIu32, gap->tid);
    env[n++] = kd_xasprintf("KD_THREAD=%s", gap->name);
    env[n++] = kd_xasprintf("KD_INTERVAL_NS=%" PRIu64, kd_gap_ns(gap));
    env[n++] = kd_xasprintf("KD_INTERVAL_MS=%" PRIu64,
                            kd_gap_ns(gap) / 1000000);
    env[n++] = kd_xasprintf("KD_START=%s",
                            kd_utc_time(&gap->start_wall, start));
    env[n++] = kd_xasprintf("KD_END=%s", kd_utc_time(&gap->end_wall, end));
    env[n++] = kd_xasprintf("KD_IN_PROGRESS=%d", gap->in_progress);
    env[n++] = kd_xasprintf("KD_DOMINANT=%s",
                            kd_gap_part_key(gap->dominant));
    env[n++] = kd_xasprintf("KD_DOMINANT_NS=%" PRIu64,
                            gap->parts[gap->dominant]);
    env[n++] = kd_xasprintf("KD_TRACE_FILE=%s", path ? path : "");
    env[n++] = kd_xasprintf("KD_NODE=%s", e->node);
    safe = kd_xstrdup_safe(gap->name);
    what = kd_xasprintf("TID %" PRIu32 " (%s), %" PRIu64 " ms%s", gap->tid,
                        safe, kd_gap_ns(gap) / 1000000,
                        gap->in_progress ? " so far" : "");
    free(safe);
    kd_output_status_clear(e->output);
    kd_action_run(&e->action, what, env, n, kd_now_ns());
    for (size_t i = 0; i < n; i++) {
        free(env[i]);
    }
    free(what);
}

void
kd_evidence_interval(struct kd_evidence *e, struct kd_capture *capture,
                     struct kd_symbols *symbols, const struct kd_gap *gap)
{
    char *path = NULL;

    if (!e) {
        return;
    }
    if (e->trace) {
        path = kd_evidence_trace(e, capture, symbols, gap);
    }
    if (e->act) {
        kd_evidence_act(e, gap, path);
    }
    free(path);
}

void
kd_evidence_poll(struct kd_evidence *e)
{
    if (e && e->act && e->action.pid) {
        kd_output_status_clear(e->output);
        kd_action_poll(&e->action, kd_now_ns());
    }
}

void
kd_evidence_destroy(struct kd_evidence *e)
{
    if (e->trace) {
        struct kd_tracedir *d = &e->dir;
        char *safe = kd_xstrdup_safe(d->dir);

        kd_output_status_clear(e->output);
        fprintf(stderr, "kernel_delay: trace-dir: %u traces written to %s, "
                "%u written again, %u removed for the caps, %u not "
                "written%s%s\n", d->written, safe, d->replaced, d->removed,
                d->failed, d->failed ? ", the last: " : "",
                d->failed ? strerror(d->last_error) : "");
        free(safe);
    }
    if (e->options && e->options->trace_dir) {
        kd_tracedir_destroy(&e->dir);
    }
    if (e->act) {
        kd_action_destroy(&e->action);
    }
    for (size_t i = 0; i < e->n_names; i++) {
        free(e->names[i].name);
    }
    free(e->names);
    e->names = NULL;
    e->n_names = 0;
    free(e->node);
    e->node = NULL;
    e->trace = e->act = false;
}
