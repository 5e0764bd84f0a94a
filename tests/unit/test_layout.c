/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Unit tests of src/layout.c that read no BTF: the struct layout written
 * for the kernel headers. */

#include <string.h>

#include "layout.h"
#include "check.h"

static void
test_layout_headers(void)
{
    struct kd_layout l;
    char *error = (char *) "unchanged";

    CHECK_INT(kd_layout_init(&l, true, &error), 0);
    CHECK(error == NULL);
    CHECK(!l.from_btf);
    CHECK_STR(l.includes, "#include <linux/sched.h>\n"
              "#include <linux/interrupt.h>\n"
              "#include <asm/ptrace.h>");
    CHECK_STR(l.task_pid, "offsetof(struct task_struct, pid)");
    CHECK_STR(l.task_tgid, "offsetof(struct task_struct, tgid)");
    CHECK(!strcmp(l.state_field, "__state") || !strcmp(l.state_field,
                                                       "state"));
    if (!strcmp(l.state_field, "__state")) {
        CHECK_STR(l.task_state, "offsetof(struct task_struct, __state)");
        CHECK_STR(l.task_state_size,
                  "sizeof(((struct task_struct *) 0)->__state)");
    } else {
        CHECK_STR(l.task_state, "offsetof(struct task_struct, state)");
        CHECK_STR(l.task_state_size,
                  "sizeof(((struct task_struct *) 0)->state)");
    }
    CHECK_STR(l.irqaction_name, "offsetof(struct irqaction, name)");
    CHECK_STR(l.task_sum_exec,
              "offsetof(struct task_struct, se.sum_exec_runtime)");
    CHECK_STR(l.task_pcount,
              "offsetof(struct task_struct, sched_info.pcount)");
    CHECK_STR(l.task_run_delay,
              "offsetof(struct task_struct, sched_info.run_delay)");
#if defined(__x86_64__)
    CHECK_STR(l.syscall_nr, "offsetof(struct pt_regs, orig_ax)");
    CHECK_STR(l.syscall_nr_size, "sizeof(((struct pt_regs *) 0)->orig_ax)");
    CHECK_STR(l.regs_rc, "offsetof(struct pt_regs, ax)");
#elif defined(__aarch64__)
    CHECK_STR(l.syscall_nr, "offsetof(struct pt_regs, syscallno)");
    CHECK_STR(l.syscall_nr_size,
              "sizeof(((struct pt_regs *) 0)->syscallno)");
    CHECK_STR(l.regs_rc, "offsetof(struct pt_regs, regs[0])");
#endif
}

static const struct test tests[] = {
    TEST(test_layout_headers),
};

CHECK_SUITE(layout, tests)
