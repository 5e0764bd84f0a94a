/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Unit tests of src/output.c: each operation of the text and JSON
 * outputs, written to memory streams: what each format writes (or not),
 * in which stream, the timestamp lines of the text, and the errors. */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gap.h"
#include "options.h"
#include "output.h"
#include "render_json.h"
#include "render_text.h"
#include "render_text_gap.h"
#include "snapshot.h"
#include "util.h"
#include "check.h"
#include "fixtures.h"

/* An output of the format --json asks for (or not), writing to memory. */
struct test_output {
    struct kd_output output;
    FILE *stream, *errors;
    char *stream_buf, *errors_buf;
    size_t stream_len, errors_len;
};

static void
test_output_open(struct test_output *t, bool json)
{
    struct kd_options options;

    memset(&options, 0, sizeof options);
    options.json = json;
    memset(t, 0, sizeof *t);
    t->stream = open_memstream(&t->stream_buf, &t->stream_len);
    t->errors = open_memstream(&t->errors_buf, &t->errors_len);
    kd_output_init(&t->output, &options, t->stream, t->errors);
}

/* What was written to the report's stream since the last call, and
 * empties it. */
static char *
test_output_take(struct test_output *t)
{
    char *s;

    fflush(t->stream);
    s = kd_xstrdup(t->stream_buf);
    fclose(t->stream);
    free(t->stream_buf);
    t->stream = open_memstream(&t->stream_buf, &t->stream_len);
    t->output.stream = t->stream;
    return s;
}

static void
test_output_close(struct test_output *t)
{
    fclose(t->stream);
    fclose(t->errors);
    free(t->stream_buf);
    free(t->errors_buf);
}

/* 's' is one timestamp line: 'msg', then " @" and the local time, then
 * the UTC time. */
static void
check_timestamp_line(const char *s, const char *msg, const char *file,
                     int line)
{
    size_t n = strlen(msg);
    bool ok = !strncmp(s, msg, n) && !strncmp(s + n, " @", 2)
              && strlen(s) > 6 && !strcmp(s + strlen(s) - 6, " UTC)\n")
              && strchr(s, '\n') == s + strlen(s) - 1;

    if (!ok) {
        check_fail(file, line, "not a timestamp line of \"%s\": \"%s\"",
                   msg, s);
    }
}

#define CHECK_TIMESTAMP_LINE(S, MSG) \
    check_timestamp_line((S), (MSG), __FILE__, __LINE__)

/* Both implementations have every operation. */
static void
test_output_complete(void)
{
    for (int json = 0; json < 2; json++) {
        struct test_output t;
        const struct kd_output *o = &t.output;

        test_output_open(&t, json);
        CHECK(o->sample_start && o->sample_stop && o->sample && o->exited
              && o->final && o->watch_start && o->long_poll
              && o->watch_stop && o->watch_end && o->status
              && o->wait_end && o->target);
        test_output_close(&t);
    }
}

/* The text output of a sample: its timestamp lines, the report as
 * render_text writes it, and a skipped one. */
static void
test_output_text_sample(void)
{
    struct kd_window w = { .index = 1, .start_trigger_ns = 123,
                           .stop_trigger_ns = 1123, .delta_ns = 1000 };
    struct kd_ds expected = KD_DS_EMPTY_INITIALIZER;
    struct kd_snapshot_event events[2];
    struct kd_stack stacks[2];
    struct kd_snapshot snap;
    struct kd_miss miss;
    struct test_output t;
    char *s, *nl;

    test_output_open(&t, false);
    t.output.sample_start(&t.output, &w);
    s = test_output_take(&t);
    CHECK_TIMESTAMP_LINE(s, "# Start sampling (trigger@123)");
    free(s);

    t.output.sample_stop(&t.output, &w);
    s = test_output_take(&t);
    nl = strchr(s, '\n');
    CHECK(nl != NULL);
    if (nl) {
        CHECK_TIMESTAMP_LINE(nl + 1, "# Triggered sample dump, stop-start "
                             "delta 1,000 ns");
        nl[1] = '\0';
        CHECK_TIMESTAMP_LINE(s, "# Stop sampling (trigger@1123)");
    }
    free(s);

    w = (struct kd_window) { .index = 2 };
    t.output.sample_start(&t.output, &w);
    t.output.sample_stop(&t.output, &w);
    s = test_output_take(&t);
    CHECK_CONTAINS(s, "# Start sampling @");
    CHECK_CONTAINS(s, "# Stop sampling @");
    CHECK_CONTAINS(s, "# Sample dump @");
    free(s);

    make_snapshot(&snap, stacks, events, &miss);
    t.output.sample(&t.output, &snap);
    s = test_output_take(&t);
    kd_render_text_sample(&expected, &snap, NULL);
    CHECK_STR(s, kd_ds_cstr(&expected));
    free(s);
    kd_ds_destroy(&expected);

    /* Skipped: no dump line, and the skipping said. */
    w = (struct kd_window) { .index = 3, .start_trigger_ns = 10,
                             .stop_trigger_ns = 1234577, .delta_ns = 1234567,
                             .skipped = true };
    t.output.sample_stop(&t.output, &w);
    s = test_output_take(&t);
    CHECK_TIMESTAMP_LINE(s, "# Stop sampling (trigger@1234577)");
    free(s);
    snap.window = w;
    t.output.sample(&t.output, &snap);
    s = test_output_take(&t);
    CHECK_TIMESTAMP_LINE(s, "# Sample dump skipped, delta 1,234,567 ns");
    free(s);
    test_output_close(&t);
}

/* The JSON output of a sample: its record alone; no timestamp line. */
static void
test_output_json_sample(void)
{
    struct kd_window w = { .index = 1, .start_trigger_ns = 123,
                           .stop_trigger_ns = 1123, .delta_ns = 1000 };
    struct kd_ds expected = KD_DS_EMPTY_INITIALIZER;
    struct kd_snapshot_event events[2];
    struct kd_stack stacks[2];
    struct kd_snapshot snap;
    struct kd_miss miss;
    struct test_output t;
    char *s;

    test_output_open(&t, true);
    t.output.sample_start(&t.output, &w);
    t.output.sample_stop(&t.output, &w);
    w.skipped = true;
    t.output.sample_stop(&t.output, &w);
    s = test_output_take(&t);
    CHECK_STR(s, "");
    free(s);

    make_snapshot(&snap, stacks, events, &miss);
    t.output.sample(&t.output, &snap);
    s = test_output_take(&t);
    kd_render_json_sample(&expected, NULL, &snap, NULL);
    CHECK_STR(s, kd_ds_cstr(&expected));
    free(s);
    kd_ds_destroy(&expected);
    test_output_close(&t);
}

/* The target's exit and the final warnings, in each format. */
static void
test_output_exited_final(void)
{
    struct kd_losses total = KD_LOSSES_INITIALIZER;
    struct test_output t;
    char *s;

    total.events_dropped = 7;
    test_output_open(&t, false);
    t.output.exited(&t.output, 42, true);
    t.output.exited(&t.output, 42, false);
    t.output.final(&t.output, &total, 1);
    s = test_output_take(&t);
    CHECK_STR(s,
        "# NOTE: Process 42 exited while waiting for the start trigger.\n"
        "\n# NOTE: Process 42 exited during the sample; the sample above "
        "ends there.\n"
        "\n# WARNING: Not all events were captured, 7 were dropped!\n"
        "#          Increase the BPF ring buffer size with the "
        "--buffer-page-count option.\n");
    free(s);
    test_output_close(&t);

    test_output_open(&t, true);
    t.output.exited(&t.output, 42, false);
    t.output.final(&t.output, &total, 1);
    s = test_output_take(&t);
    CHECK_STR(s, "");
    free(s);
    t.output.exited(&t.output, 42, true);
    s = test_output_take(&t);
    CHECK_STR(s, "{\"version\":2,\"pid\":42,\"target_exited\":true,"
              "\"waiting_for\":\"start trigger\"}\n");
    free(s);
    test_output_close(&t);
}

/* A watch of long poll intervals, in each format: text has its timestamp
 * lines, its blocks and its end; JSON a record per interval and one at
 * the end. */
static void
test_output_watch(void)
{
    struct kd_ds expected = KD_DS_EMPTY_INITIALIZER;
    struct kd_losses total = KD_LOSSES_INITIALIZER;
    struct kd_gap_event ev;
    struct test_output t;
    struct kd_gap gap;
    char *s;

    make_gap_event(&ev);
    kd_gap_decode(&ev, 0, 1, &gap);

    test_output_open(&t, false);
    t.output.watch_start(&t.output, 1000000000);
    s = test_output_take(&t);
    CHECK_TIMESTAMP_LINE(s, "# Start watching poll() intervals over "
                         "1,000,000,000 ns");
    free(s);
    t.output.long_poll(&t.output, &gap, &total);
    s = test_output_take(&t);
    kd_render_text_gap(&expected, &gap);
    CHECK_STR(s, kd_ds_cstr(&expected));
    free(s);
    kd_ds_destroy(&expected);
    t.output.watch_stop(&t.output);
    s = test_output_take(&t);
    CHECK_TIMESTAMP_LINE(s, "# Stop watching");
    free(s);
    t.output.watch_end(&t.output, 40, &total, 1, true);
    s = test_output_take(&t);
    CHECK_STR(s, "\n# 1 long poll interval reported.\n"
              "\n# NOTE: Process 40 exited.\n");
    free(s);
    test_output_close(&t);

    test_output_open(&t, true);
    t.output.watch_start(&t.output, 1000000000);
    t.output.watch_stop(&t.output);
    s = test_output_take(&t);
    CHECK_STR(s, "");
    free(s);
    t.output.long_poll(&t.output, &gap, &total);
    t.output.watch_end(&t.output, 40, &total, 1, true);
    s = test_output_take(&t);
    kd_render_json_gap(&expected, NULL, &gap, &total);
    kd_render_json_watch_end(&expected, NULL, 40, &total, 1, true);
    CHECK_STR(s, kd_ds_cstr(&expected));
    free(s);
    kd_ds_destroy(&expected);
    test_output_close(&t);
}

/* The target's comings and goings (--wait-target): a timestamp line in
 * text, a record in JSON, with the node of --node-name. */
static void
test_output_target(void)
{
    struct kd_options options;
    struct test_output t;
    char *s;

    test_output_open(&t, false);
    t.output.target(&t.output, KD_TARGET_WAITING, 0);
    s = test_output_take(&t);
    CHECK_TIMESTAMP_LINE(s, "# Waiting for ovs-vswitchd");
    free(s);
    t.output.target(&t.output, KD_TARGET_ATTACHED, 40);
    s = test_output_take(&t);
    CHECK(s[0] == '\n');
    CHECK_TIMESTAMP_LINE(s + 1, "# Attached to process 40");
    free(s);
    test_output_close(&t);

    memset(&options, 0, sizeof options);
    options.json = true;
    options.node_name = "worker-1";
    memset(&t, 0, sizeof t);
    t.stream = open_memstream(&t.stream_buf, &t.stream_len);
    t.errors = open_memstream(&t.errors_buf, &t.errors_len);
    kd_output_init(&t.output, &options, t.stream, t.errors);
    t.output.target(&t.output, KD_TARGET_LOST, 40);
    s = test_output_take(&t);
    CHECK(!strncmp(s, "{\"version\":2,\"node\":\"worker-1\",\"type\":"
                   "\"target\",\"event\":\"lost\",\"pid\":40,\"time\":\"",
                   strlen("{\"version\":2,\"node\":\"worker-1\",\"type\":"
                          "\"target\",\"event\":\"lost\",\"pid\":40,"
                          "\"time\":\"")));
    CHECK(strchr(s, '\n') == s + strlen(s) - 1);
    free(s);
    test_output_close(&t);
}

/* Errors: after what the report wrote so far; on the report's stream in
 * text, as the reference, on the error stream in JSON. */
static void
test_output_error(void)
{
    struct test_output t;
    char *s;

    test_output_open(&t, false);
    t.output.exited(&t.output, 7, true);
    kd_output_error(&t.output, "No process with PID %u!\n", 9);
    s = test_output_take(&t);
    CHECK_STR(s, "# NOTE: Process 7 exited while waiting for the start "
              "trigger.\nERROR: No process with PID 9!\n");
    free(s);
    fflush(t.errors);
    CHECK_UINT(t.errors_len, 0);
    test_output_close(&t);

    test_output_open(&t, true);
    kd_output_error(&t.output, "No process with PID %u!\n", 9);
    s = test_output_take(&t);
    CHECK_STR(s, "");
    free(s);
    fflush(t.errors);
    CHECK_STR(t.errors_buf, "ERROR: No process with PID 9!\n");
    test_output_close(&t);
}

/* The status line, in both formats: on the terminal only (never on the
 * report's stream), drawn after a carriage return, cut to the width less
 * one column, not redrawn when unchanged, erased with spaces before
 * anything else is written; nothing at all without a terminal. */
static void
test_output_status(void)
{
    struct kd_status st = {
        .trigger = "u:kd_workload:job_start", .elapsed_ns = 3100000000ull,
        .tgid = 42, .n_threads = 12,
    };

    for (int json = 0; json < 2; json++) {
        struct kd_ds text = KD_DS_EMPTY_INITIALIZER;
        struct kd_status_line line;
        struct test_output t;
        char *tty_buf = NULL, *s, *expected;
        size_t tty_len = 0, n;
        FILE *tty;

        test_output_open(&t, json);
        t.output.status(&t.output, &st);
        test_output_close(&t);

        test_output_open(&t, json);
        tty = open_memstream(&tty_buf, &tty_len);
        kd_output_set_status(&t.output, &line, tty);
        kd_status_format(&text, &st);
        t.output.status(&t.output, &st);
        t.output.status(&t.output, &st);
        fflush(tty);
        /* A memory stream has no width: 80 columns, less one. */
        n = strlen(kd_ds_cstr(&text)) < 79 ? strlen(kd_ds_cstr(&text)) : 79;
        expected = kd_xasprintf("\r%.*s", (int) n, kd_ds_cstr(&text));
        CHECK_STR(tty_buf, expected);
        free(expected);
        t.output.exited(&t.output, 42, true);
        fflush(tty);
        expected = kd_xasprintf("\r%.*s\r%*s\r", (int) n,
                                kd_ds_cstr(&text), (int) n, "");
        CHECK_STR(tty_buf, expected);
        free(expected);
        s = test_output_take(&t);
        CHECK_NOT_CONTAINS(s, "Ctrl-C");
        CHECK_NOT_CONTAINS(s, "\r");
        free(s);

        /* A sample starts: the wait is over, in JSON too (which writes
         * nothing then). */
        t.output.status(&t.output, &st);
        t.output.sample_start(&t.output, &(struct kd_window) { .index = 1 });
        fflush(tty);
        expected = kd_xasprintf("\r%.*s\r%*s\r\r%.*s\r%*s\r", (int) n,
                                kd_ds_cstr(&text), (int) n, "", (int) n,
                                kd_ds_cstr(&text), (int) n, "");
        CHECK_STR(tty_buf, expected);
        free(expected);
        fclose(tty);
        free(tty_buf);
        kd_ds_destroy(&text);
        test_output_close(&t);
    }
}

static const struct test tests[] = {
    TEST(test_output_target),
    TEST(test_output_complete),
    TEST(test_output_text_sample),
    TEST(test_output_json_sample),
    TEST(test_output_exited_final),
    TEST(test_output_watch),
    TEST(test_output_error),
    TEST(test_output_status),
};

CHECK_SUITE(output, tests)
