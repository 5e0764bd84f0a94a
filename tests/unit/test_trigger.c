/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Unit tests of src/trigger.c: the grammar of each trigger kind, its
 * error messages, and the quoting of untrusted text in them. */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trigger.h"
#include "util.h"
#include "check.h"

struct trigger_case {
    const char *text;
    enum kd_trigger_type type;
    const char *a;      /* provider, system, library or function. */
    const char *b;      /* probe, event or function, or NULL. */
};

static void
test_trigger_valid(void)
{
    static const struct trigger_case cases[] = {
        { "u:udpif_revalidator:start_dump", KD_TRIGGER_USDT,
          "udpif_revalidator", "start_dump" },
        { "usdt:dpif_netlink_operate__:op_flow_put", KD_TRIGGER_USDT,
          "dpif_netlink_operate__", "op_flow_put" },
        { "t:openvswitch:ovs_dp_upcall", KD_TRIGGER_TRACE,
          "openvswitch", "ovs_dp_upcall" },
        { "trace:sched:sched_switch", KD_TRIGGER_TRACE, "sched",
          "sched_switch" },
        { "t:9p:9p_client_req", KD_TRIGGER_TRACE, "9p", "9p_client_req" },
        { "k:ovs_dp_process_packet", KD_TRIGGER_KPROBE,
          "ovs_dp_process_packet", NULL },
        { "kprobe:tcp_sendmsg.isra.0", KD_TRIGGER_KPROBE,
          "tcp_sendmsg.isra.0", NULL },
        { "kr:ovs_dp_process_packet", KD_TRIGGER_KRETPROBE,
          "ovs_dp_process_packet", NULL },
        { "kretprobe:do_sys_openat2", KD_TRIGGER_KRETPROBE,
          "do_sys_openat2", NULL },
        { "up:bridge_run", KD_TRIGGER_UPROBE, NULL, "bridge_run" },
        { "uprobe:_ZN3foo3barEv", KD_TRIGGER_UPROBE, NULL, "_ZN3foo3barEv" },
        { "ur:bridge_run", KD_TRIGGER_URETPROBE, NULL, "bridge_run" },
        { "upr:bridge_run", KD_TRIGGER_URETPROBE, NULL, "bridge_run" },
        { "uretprobe:bridge_run", KD_TRIGGER_URETPROBE, NULL,
          "bridge_run" },
        { "up:libc.so.6:malloc", KD_TRIGGER_UPROBE, "libc.so.6",
          "malloc" },
        { "ur:/usr/lib/x86_64-linux-gnu/libc.so.6:free",
          KD_TRIGGER_URETPROBE, "/usr/lib/x86_64-linux-gnu/libc.so.6",
          "free" },
        { "up:libstdc++.so.6:_Znwm", KD_TRIGGER_UPROBE, "libstdc++.so.6",
          "_Znwm" },
    };

    for (size_t i = 0; i < KD_ARRAY_SIZE(cases); i++) {
        const struct trigger_case *c = &cases[i];
        struct kd_trigger t;
        char *error = NULL;

        if (!CHECK_INT(kd_trigger_parse(c->text, &t, &error), 0)) {
            printf("    for %s: %s\n", c->text, error ? error : "");
            free(error);
            continue;
        }
        CHECK_INT(t.type, c->type);
        CHECK_STR(t.text, c->text);
        switch (c->type) {
        case KD_TRIGGER_USDT:
            CHECK_STR(t.provider, c->a);
            CHECK_STR(t.probe, c->b);
            break;
        case KD_TRIGGER_TRACE:
            CHECK_STR(t.system, c->a);
            CHECK_STR(t.event, c->b);
            break;
        case KD_TRIGGER_KPROBE:
        case KD_TRIGGER_KRETPROBE:
            CHECK_STR(t.function, c->a);
            break;
        case KD_TRIGGER_UPROBE:
        case KD_TRIGGER_URETPROBE:
            if (c->a) {
                CHECK_STR(t.library, c->a);
            } else {
                CHECK(t.library == NULL);
            }
            CHECK_STR(t.function, c->b);
            break;
        case KD_N_TRIGGER_TYPES:
        default:
            CHECK(false);
        }
        kd_trigger_destroy(&t);
    }
}

static void
test_trigger_type_names(void)
{
    CHECK_STR(kd_trigger_type_name(KD_TRIGGER_USDT), "usdt");
    CHECK_STR(kd_trigger_type_name(KD_TRIGGER_TRACE), "trace");
    CHECK_STR(kd_trigger_type_name(KD_TRIGGER_KPROBE), "kprobe");
    CHECK_STR(kd_trigger_type_name(KD_TRIGGER_KRETPROBE), "kretprobe");
    CHECK_STR(kd_trigger_type_name(KD_TRIGGER_UPROBE), "uprobe");
    CHECK_STR(kd_trigger_type_name(KD_TRIGGER_URETPROBE), "uretprobe");
}

static void
test_trigger_invalid(void)
{
    static const struct {
        const char *text;
        const char *error;
    } cases[] = {
        { "", "[]; Can't extract probe type." },
        { "up", "[up]; Can't extract probe type." },
        { "x:y", "[x:y]; Invalid probe type 'x'" },
        { "U:a:b", "[U:a:b]; Invalid probe type 'U'" },
        { ":a:b", "[:a:b]; Invalid probe type ''" },
        { "u:a", "[u:a]; Invalid number of arguments for USDT (expected "
          "u:PROVIDER:PROBE)" },
        { "u:a:b:c", "[u:a:b:c]; Too many ':' separated parts" },
        { "u::b", "[u::b]; Invalid USDT provider '': is empty" },
        { "u:a:", "[u:a:]; Invalid USDT probe '': is empty" },
        { "u:1a:b", "[u:1a:b]; Invalid USDT provider '1a': must be a C "
          "identifier" },
        { "u:a b:c", "[u:a b:c]; Invalid USDT provider 'a b': must be a C "
          "identifier" },
        { "u:a;b:c", "[u:a;b:c]; Invalid USDT provider 'a;b': must be a C "
          "identifier" },
        { "u:a:b(", "[u:a:b(]; Invalid USDT probe 'b(': must be a C "
          "identifier" },
        { "u:a:{b}", "[u:a:{b}]; Invalid USDT probe '{b}': must be a C "
          "identifier" },
        { "u:a:$b", "[u:a:$b]; Invalid USDT probe '$b': must be a C "
          "identifier" },
        { "u:a:\"b\"", "[u:a:\"b\"]; Invalid USDT probe '\"b\"': must be a "
          "C identifier" },
        { "u:a:b\nc", "[u:a:b\\x0ac]; Invalid USDT probe 'b\\x0ac': must be "
          "a C identifier" },
        { "t:sched", "[t:sched]; Invalid number of arguments for TRACE "
          "(expected t:SYSTEM:EVENT)" },
        { "t:sched:sched-switch", "[t:sched:sched-switch]; Invalid "
          "tracepoint event 'sched-switch': may only hold letters, digits "
          "and '_'" },
        { "t:../x:y", "[t:../x:y]; Invalid tracepoint system '../x': may "
          "only hold letters, digits and '_'" },
        { "k:a:b", "[k:a:b]; Invalid number of arguments for K(RET)PROBE "
          "(expected k:FUNCTION)" },
        { "kr:.foo", "[kr:.foo]; Invalid kernel function '.foo': must be a "
          "function name (a C identifier, optionally with '.' suffixes)" },
        { "k:foo*", "[k:foo*]; Invalid kernel function 'foo*': must be a "
          "function name (a C identifier, optionally with '.' suffixes)" },
        { "up:", "[up:]; Invalid function '': is empty" },
        { "up:a:b:c", "[up:a:b:c]; Too many ':' separated parts" },
        { "up:foo);", "[up:foo);]; Invalid function 'foo);': must be a "
          "function name (a C identifier, optionally with '.' suffixes)" },
        { "up:lib c.so:f", "[up:lib c.so:f]; Invalid library 'lib c.so': "
          "may only hold letters, digits and '_', '.', '/', '+', '-'" },
        { "up:../../etc/x:f", "[up:../../etc/x:f]; Invalid library "
          "'../../etc/x': must not contain '..'" },
        { "up:$(reboot):f", "[up:$(reboot):f]; Invalid library "
          "'$(reboot)': may only hold letters, digits and '_', '.', '/', "
          "'+', '-'" },
        { "ur:", "[ur:]; Invalid function '': is empty" },
    };

    for (size_t i = 0; i < KD_ARRAY_SIZE(cases); i++) {
        struct kd_trigger t;
        char *error = NULL;

        if (CHECK_INT(kd_trigger_parse(cases[i].text, &t, &error),
                      EINVAL)) {
            CHECK_STR(error, cases[i].error);
        }
        free(error);
    }
}

static void
test_trigger_too_long(void)
{
    char text[KD_TRIGGER_PART_MAX + 16];
    struct kd_trigger t;
    char *error = NULL;

    /* The longest part that is accepted, then one more character. */
    memset(text, 'a', sizeof text);
    memcpy(text, "up:", 3);
    text[3 + KD_TRIGGER_PART_MAX] = '\0';
    CHECK_INT(kd_trigger_parse(text, &t, &error), 0);
    kd_trigger_destroy(&t);

    text[3 + KD_TRIGGER_PART_MAX] = 'a';
    text[4 + KD_TRIGGER_PART_MAX] = '\0';
    CHECK_INT(kd_trigger_parse(text, &t, &error), EINVAL);
    CHECK_CONTAINS(error, "is too long");
    /* The quoted text is cut, so the message stays short. */
    CHECK(strlen(error) < 300);
    free(error);
}

static void
test_trigger_quote(void)
{
    char buf[16];

    CHECK_STR(kd_trigger_quote("abc", buf, sizeof buf), "abc");
    CHECK_STR(kd_trigger_quote("a\tb\\", buf, sizeof buf), "a\\x09b\\x5c");
    CHECK_STR(kd_trigger_quote("0123456789abcdef", buf, sizeof buf),
              "0123456789ab...");
    /* What fits is never cut (found by fuzzing). */
    CHECK_STR(kd_trigger_quote("0123456789abcde", buf, sizeof buf),
              "0123456789abcde");
    CHECK_STR(kd_trigger_quote("0123456789ab", buf, sizeof buf),
              "0123456789ab");
}

static const struct test tests[] = {
    TEST(test_trigger_valid),
    TEST(test_trigger_type_names),
    TEST(test_trigger_invalid),
    TEST(test_trigger_too_long),
    TEST(test_trigger_quote),
};

CHECK_SUITE(trigger, tests)
