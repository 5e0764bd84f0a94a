/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Unit tests of src/folded.c: an interval's stacks in the folded format
 * of flame graph tools. */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "folded.h"
#include "gap.h"
#include "util.h"
#include "check.h"
#include "fixtures.h"

/* Frames: the function's name, the module's when only that is known; the
 * separator and what a terminal could misread replaced. */
static void
test_folded_frame(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    kd_folded_frame(&ds, "main+0x2 [ovs-vswitchd]", false);
    kd_ds_put_char(&ds, '|');
    kd_folded_frame(&ds, "clear_user+0x10 [kernel]", true);
    kd_ds_put_char(&ds, '|');
    kd_folded_frame(&ds, "[unknown] [[vdso]]", false);
    kd_ds_put_char(&ds, '|');
    kd_folded_frame(&ds, "[unknown] 0x7f0012345678", false);
    kd_ds_put_char(&ds, '|');
    kd_folded_frame(&ds, "a;b\033c+0x1 [m]", false);
    kd_ds_put_char(&ds, '|');
    kd_folded_frame(&ds, "bare", false);
    CHECK_STR(kd_ds_cstr(&ds), "main|clear_user_[k]|[[vdso]]|[unknown]|"
              "a:b\\x1bc|bare");
    kd_ds_destroy(&ds);
}

/* An interval: its thread and its end and length as the root frames, then
 * "on-cpu", the frames outermost first, the estimated ns; the samples in
 * no stack shown on their own lines; the values add up to the time on
 * CPU. */
static void
test_folded_gap(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    struct kd_gap_event ev;
    struct kd_gap gap;

    make_profiled_gap(&ev, &gap);
    ev.comm[0] = ';';
    kd_gap_merge_stacks(&gap);
    gap.name[0] = ';';
    kd_folded_gap(&ds, &gap);
    CHECK_STR(kd_ds_cstr(&ds),
        ":evalidator12345 42;long poll 1970-01-01T00:00:06.000000Z "
        "1000.0 ms;on-cpu;main;spin 48500000\n"
        ":evalidator12345 42;long poll 1970-01-01T00:00:06.000000Z "
        "1000.0 ms;on-cpu;main;read;clear_user_[k] 46560000\n"
        ":evalidator12345 42;long poll 1970-01-01T00:00:06.000000Z "
        "1000.0 ms;on-cpu;[no room in the map] 1940000\n");
    CHECK_UINT(48500000 + 46560000 + 1940000, gap.parts[KD_GAP_ON_CPU]);
    kd_ds_destroy(&ds);
    kd_gap_destroy(&gap);

    /* --off-cpu: the waker's frames on top of the sleeper's. */
    make_blocked_gap(&ev, &gap);
    kd_gap_merge_blocked(&gap);
    strcpy(gap.blocked[1].waker_name, "swap;\033r/1");
    kd_folded_gap(&ds, &gap);
    CHECK_STR(kd_ds_cstr(&ds),
        "revalidator12345 42;long poll 1970-01-01T00:00:06.000000Z 1000.0 ms;b"
        "locked;wait_reply;read;schedule_[k];waker:writer;send_reply;write;try"
        "_to_wake_up_[k] 403000000\n"
        "revalidator12345 42;long poll 1970-01-01T00:00:06.000000Z 1000.0 ms;b"
        "locked;lll_lock;futex_wait_[k];waker:[hard IRQ] swap:\\x1br/1;hrtimer"
        "_interrupt_[k];try_to_wake_up_[k] 50000000\n"
        "revalidator12345 42;long poll 1970-01-01T00:00:06.000000Z 1000.0 ms;b"
        "locked;nanosleep;do_nanosleep_[k] 10000000\n");
    kd_ds_destroy(&ds);
    kd_gap_destroy(&gap);

    /* No profile: nothing. */
    make_gap_event(&ev);
    kd_gap_decode(&ev, 0, 1, &gap);
    kd_folded_gap(&ds, &gap);
    CHECK_STR(kd_ds_cstr(&ds), "");
    kd_ds_destroy(&ds);
}

static const struct test tests[] = {
    TEST(test_folded_frame),
    TEST(test_folded_gap),
};

CHECK_SUITE(folded, tests)
