/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Unit tests of src/symbols.c that resolve nothing: how a stack frame is
 * printed, and which frames are the tracing machinery's own. */

#include "symbols.h"
#include "check.h"

static void
test_format_frame(void)
{
    char buf[128];

    CHECK_STR(kd_format_frame("do_syscall_64", 0x68, "kernel", 0x1234, buf,
                              sizeof buf), "do_syscall_64+0x68 [kernel]");
    CHECK_STR(kd_format_frame("main", 0x1a, "/usr/sbin/ovs-vswitchd", 1, buf,
                              sizeof buf), "main+0x1a [ovs-vswitchd]");
    CHECK_STR(kd_format_frame(NULL, 0, "/lib/x86_64-linux-gnu/libc.so.6", 1,
                              buf, sizeof buf), "[unknown] [libc.so.6]");
    CHECK_STR(kd_format_frame(NULL, 0, NULL, 0x7fff19f2bd00, buf,
                              sizeof buf), "[unknown] 0x7fff19f2bd00");
    CHECK_STR(kd_format_frame("f", 0, NULL, 1, buf, sizeof buf), "f+0x0");
}

static void
test_frame_is_tracing(void)
{
    CHECK(kd_frame_is_tracing("bpf_prog_9526e9efb47c646d_raw_tracepoint__"
                              "sys_exit+0x447 [bpf]"));
    CHECK(kd_frame_is_tracing("bpf_trace_run2+0x159 [kernel]"));
    CHECK(kd_frame_is_tracing("__bpf_trace_sys_exit+0xc [kernel]"));
    CHECK(kd_frame_is_tracing("__traceiter_sys_exit+0x31 [kernel]"));
    CHECK(!kd_frame_is_tracing("syscall_exit_work+0xbc [kernel]"));
    CHECK(!kd_frame_is_tracing("do_syscall_64+0x22e [kernel]"));
}

static const struct test tests[] = {
    TEST(test_format_frame),
    TEST(test_frame_is_tracing),
};

CHECK_SUITE(symbols, tests)
