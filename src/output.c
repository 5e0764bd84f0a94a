/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* The output interface and its two implementations: text and JSON. */

#include "output.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include "folded.h"
#include "gap.h"
#include "metrics.h"
#include "options.h"
#include "render_json.h"
#include "render_text.h"
#include "render_text_gap.h"
#include "report.h"
#include "snapshot.h"

void
kd_output_set_status(struct kd_output *output, struct kd_status_line *line,
                     FILE *tty)
{
    memset(line, 0, sizeof *line);
    line->tty = tty;
    output->line = line;
}

/* Erases the status line with spaces between two carriage returns: no
 * escape sequence, whatever the terminal. */
void
kd_output_status_clear(const struct kd_output *o)
{
    struct kd_status_line *line = o->line;

    if (line && line->shown) {
        fprintf(line->tty, "\r%*s\r", (int) line->shown, "");
        fflush(line->tty);
        line->shown = 0;
    }
    if (line) {
        free(line->text);
        line->text = NULL;
    }
}

/* The terminal's width in columns, or 80 when it does not say. */
static size_t
kd_output_tty_columns(FILE *tty)
{
    struct winsize ws;

    if (!ioctl(fileno(tty), TIOCGWINSZ, &ws) && ws.ws_col > 0) {
        return ws.ws_col;
    }
    return 80;
}

/* The status line, in every format: redrawn in place when its text
 * changes, cut to the terminal's width less one column (so that it never
 * wraps, and a carriage return brings the cursor back to its start). */
static void
kd_output_status(const struct kd_output *o, const struct kd_status *st)
{
    struct kd_status_line *line = o->line;
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    size_t width, n;

    if (!line) {
        return;
    }
    kd_status_format(&ds, st);
    if (line->text && !strcmp(line->text, kd_ds_cstr(&ds))) {
        kd_ds_destroy(&ds);
        return;
    }
    width = kd_output_tty_columns(line->tty) - 1;
    n = strlen(kd_ds_cstr(&ds));
    n = n < width ? n : width;
    fprintf(line->tty, "\r%.*s", (int) n, kd_ds_cstr(&ds));
    if (line->shown > n) {
        fprintf(line->tty, "%*s\r%.*s", (int) (line->shown - n), "",
                (int) n, kd_ds_cstr(&ds));
    }
    fflush(line->tty);
    line->shown = n;
    free(line->text);
    line->text = kd_ds_steal_cstr(&ds);
}

/* The note that no start trigger fired, on standard error in every
 * format (standard output stays as the reference leaves it: empty). */
static void
kd_output_wait_end(const struct kd_output *o, const char *what,
                   uint64_t waited_ns)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    kd_output_status_clear(o);
    kd_render_text_wait_end(&ds, what, waited_ns);
    fflush(o->stream);
    kd_ds_flush(&ds, stderr, 0);
    fflush(stderr);
    kd_ds_destroy(&ds);
}

/* The sink of a long report: the report's stream. */
static void
kd_output_sink_write(struct kd_ds *ds, void *stream_)
{
    kd_ds_flush(ds, stream_, 0);
}

/* Writes 'ds' to the report's stream, flushes it, and frees 'ds'. */
static void
kd_output_write(const struct kd_output *o, struct kd_ds *ds)
{
    kd_output_status_clear(o);
    kd_ds_flush(ds, o->stream, 0);
    fflush(o->stream);
    kd_ds_destroy(ds);
}

void
kd_output_error(const struct kd_output *o, const char *format, ...)
{
    va_list args;

    kd_output_status_clear(o);
    fflush(o->stream);
    fputs("ERROR: ", o->errors);
    va_start(args, format);
    vfprintf(o->errors, format, args);
    va_end(args);
    fflush(o->errors);
}

/* --metrics: an interval, ended or in progress (counted once it ends),
 * with what the capture lost so far. */
static void
kd_output_metrics(const struct kd_output *o, const struct kd_gap *gap,
                  const struct kd_losses *total)
{
    if (o->metrics) {
        kd_metrics_set_losses(o->metrics, total);
        kd_metrics_add_gap(o->metrics, gap);
    }
}

/* --metrics: a watch starts (attached) or ends, with what its capture
 * lost, 'total'. */
static void
kd_output_metrics_watch(const struct kd_output *o, bool attached,
                        const struct kd_losses *total)
{
    if (o->metrics) {
        if (total) {
            kd_metrics_set_losses(o->metrics, total);
        }
        kd_metrics_set_attached(o->metrics, attached);
    }
}

/* Text, in the reference's layout. */

/* A timestamp line ("# Start sampling @..."), at once, so that whoever
 * reads the output knows: " (trigger@TS)" follows 'msg' when 'trigger_ns'
 * is not 0, " DELTA ns" when 'delta_ns' is not 0. */
static void
kd_output_text_timestamp(const struct kd_output *o, const char *msg,
                         uint64_t trigger_ns, uint64_t delta_ns)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    struct timespec now;
    char buf[32];
    char *line;

    clock_gettime(CLOCK_REALTIME, &now);
    if (trigger_ns) {
        line = kd_xasprintf("%s (trigger@%" PRIu64 ")", msg, trigger_ns);
    } else if (delta_ns) {
        line = kd_xasprintf("%s %s ns", msg,
                            kd_report_thousands(delta_ns, buf));
    } else {
        line = kd_xstrdup(msg);
    }
    kd_report_timestamp(&ds, line, &now);
    kd_output_write(o, &ds);
    free(line);
}

static void
kd_output_text_sample_start(const struct kd_output *o,
                            const struct kd_window *w)
{
    kd_output_text_timestamp(o, "# Start sampling", w->start_trigger_ns, 0);
}

static void
kd_output_text_sample_stop(const struct kd_output *o,
                           const struct kd_window *w)
{
    kd_output_text_timestamp(o, "# Stop sampling", w->stop_trigger_ns, 0);
    if (!w->skipped) {
        kd_output_text_timestamp(o, w->delta_ns
                                    ? "# Triggered sample dump, "
                                      "stop-start delta"
                                    : "# Sample dump", 0, w->delta_ns);
    }
}

static void
kd_output_text_sample(const struct kd_output *o,
                      const struct kd_snapshot *snap)
{
    struct kd_ds_sink sink = { kd_output_sink_write, o->stream };
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    if (snap->window.skipped) {
        kd_output_text_timestamp(o, "# Sample dump skipped, delta", 0,
                                 snap->window.delta_ns);
        return;
    }
    kd_output_status_clear(o);
    kd_render_text_sample(&ds, snap, &sink);
    kd_output_write(o, &ds);
}

static void
kd_output_text_exited(const struct kd_output *o, unsigned int tgid,
                      bool waiting)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    kd_render_text_exited(&ds, tgid, waiting);
    kd_output_write(o, &ds);
}

static void
kd_output_text_final(const struct kd_output *o,
                     const struct kd_losses *total,
                     unsigned int sample_count)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    kd_render_text_final(&ds, total, sample_count);
    kd_output_write(o, &ds);
}

static void
kd_output_text_watch_start(const struct kd_output *o, uint64_t threshold_ns)
{
    char what[96], num[32];

    snprintf(what, sizeof what, "# Start watching poll() intervals over "
             "%s ns", kd_report_thousands(threshold_ns, num));
    kd_output_text_timestamp(o, what, 0, 0);
    kd_output_metrics_watch(o, true, NULL);
}

/* --folded: the stacks of an interval that ended, appended at once (a
 * watch may end by a SIGKILL). */
static void
kd_output_folded(const struct kd_output *o, const struct kd_gap *gap)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    if (!o->folded || gap->in_progress) {
        return;
    }
    kd_folded_gap(&ds, gap);
    kd_ds_flush(&ds, o->folded, 0);
    fflush(o->folded);
    kd_ds_destroy(&ds);
}

static void
kd_output_text_long_poll(const struct kd_output *o, const struct kd_gap *gap,
                         const struct kd_losses *total)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    /* The warnings come at the end of the watch. */
    (void) total;
    kd_render_text_gap(&ds, gap);
    kd_output_write(o, &ds);
    kd_output_folded(o, gap);
    kd_output_metrics(o, gap, total);
}

static void
kd_output_text_watch_stop(const struct kd_output *o)
{
    kd_output_text_timestamp(o, "# Stop watching", 0, 0);
}

static void
kd_output_text_watch_end(const struct kd_output *o, unsigned int tgid,
                         const struct kd_losses *total,
                         unsigned int reported, bool target_exited)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    kd_render_text_watch_end(&ds, tgid, total, reported, target_exited);
    kd_output_write(o, &ds);
    kd_output_metrics_watch(o, false, total);
}

static void
kd_output_text_target(const struct kd_output *o, enum kd_target_event event,
                      unsigned int tgid)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    struct timespec now;

    kd_output_status_clear(o);
    clock_gettime(CLOCK_REALTIME, &now);
    kd_render_text_target(&ds, event, tgid, &now);
    kd_output_write(o, &ds);
}

static const struct kd_output kd_output_text = {
    .sample_start = kd_output_text_sample_start,
    .sample_stop = kd_output_text_sample_stop,
    .sample = kd_output_text_sample,
    .exited = kd_output_text_exited,
    .final = kd_output_text_final,
    .watch_start = kd_output_text_watch_start,
    .long_poll = kd_output_text_long_poll,
    .watch_stop = kd_output_text_watch_stop,
    .watch_end = kd_output_text_watch_end,
    .status = kd_output_status,
    .wait_end = kd_output_wait_end,
    .target = kd_output_text_target,
};

/* JSON Lines (--json): one record per sample, per long poll interval, at
 * the end of a watch, and when the target exits before a sample; no
 * timestamp line (the records hold their times) and no final warnings
 * (each record holds its warnings, cumulative where the text prints them
 * at the end). */

static void
kd_output_json_window(const struct kd_output *o, const struct kd_window *w)
{
    /* Nothing to write, but the wait is over. */
    (void) w;
    kd_output_status_clear(o);
}

static void
kd_output_json_sample(const struct kd_output *o,
                      const struct kd_snapshot *snap)
{
    struct kd_ds_sink sink = { kd_output_sink_write, o->stream };
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    kd_output_status_clear(o);
    kd_render_json_sample(&ds, o->node, snap, &sink);
    kd_output_write(o, &ds);
}

static void
kd_output_json_exited(const struct kd_output *o, unsigned int tgid,
                      bool waiting)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    kd_render_json_exited(&ds, o->node, tgid, waiting);
    kd_output_write(o, &ds);
}

static void
kd_output_json_final(const struct kd_output *o,
                     const struct kd_losses *total,
                     unsigned int sample_count)
{
    (void) o;
    (void) total;
    (void) sample_count;
}

static void
kd_output_json_watch_start(const struct kd_output *o, uint64_t threshold_ns)
{
    (void) threshold_ns;
    kd_output_metrics_watch(o, true, NULL);
}

static void
kd_output_json_long_poll(const struct kd_output *o, const struct kd_gap *gap,
                         const struct kd_losses *total)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    kd_render_json_gap(&ds, o->node, gap, total);
    kd_output_write(o, &ds);
    kd_output_folded(o, gap);
    kd_output_metrics(o, gap, total);
}

static void
kd_output_json_watch_stop(const struct kd_output *o)
{
    (void) o;
}

static void
kd_output_json_watch_end(const struct kd_output *o, unsigned int tgid,
                         const struct kd_losses *total,
                         unsigned int reported, bool target_exited)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    kd_render_json_watch_end(&ds, o->node, tgid, total, reported,
                             target_exited);
    kd_output_write(o, &ds);
    kd_output_metrics_watch(o, false, total);
}

static void
kd_output_json_target(const struct kd_output *o, enum kd_target_event event,
                      unsigned int tgid)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    struct timespec now;

    kd_output_status_clear(o);
    clock_gettime(CLOCK_REALTIME, &now);
    kd_render_json_target(&ds, o->node, event, tgid, &now);
    kd_output_write(o, &ds);
}

static const struct kd_output kd_output_json = {
    .sample_start = kd_output_json_window,
    .sample_stop = kd_output_json_window,
    .sample = kd_output_json_sample,
    .exited = kd_output_json_exited,
    .final = kd_output_json_final,
    .watch_start = kd_output_json_watch_start,
    .long_poll = kd_output_json_long_poll,
    .watch_stop = kd_output_json_watch_stop,
    .watch_end = kd_output_json_watch_end,
    .status = kd_output_status,
    .wait_end = kd_output_wait_end,
    .target = kd_output_json_target,
};

void
kd_output_init(struct kd_output *output, const struct kd_options *options,
               FILE *stream, FILE *errors)
{
    *output = options->json ? kd_output_json : kd_output_text;
    output->stream = stream;
    output->errors = options->json ? errors : stream;
    output->line = NULL;
    output->node = options->node_name;
    output->folded = NULL;
    output->metrics = NULL;
}
