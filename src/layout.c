/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Where the eBPF program finds kernel fields: BTF, or kernel headers. */

#include "layout.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "util.h"

/* The members of struct pt_regs that hold the syscall number, as the
 * kernel's syscall_get_nr() reads it, and a function's return value, as
 * its regs_return_value() reads it: a member name and, for arrays, the
 * element's index (and, for the headers, the same as a member
 * designator). */
/* And the user registers an unwinder starts from (KD_PT_REGS_UW: the
 * program counter, the stack pointer, the frame pointer and the link
 * register, as members and indexes, then as designators; x86_64 has no
 * link register, s390x no unwinder). */
#if defined(__x86_64__)
#define KD_PT_REGS_SYSCALL_NR "orig_ax"
#define KD_PT_REGS_RC "ax"
#define KD_PT_REGS_RC_INDEX 0
#define KD_PT_REGS_RC_EXPR "ax"
#define KD_PT_REGS_UW(PC, SP, FP, LR)                                   \
    PC("ip", 0, "ip") SP("sp", 0, "sp") FP("bp", 0, "bp")                \
    LR("ip", 0, "ip")
#elif defined(__aarch64__)
#define KD_PT_REGS_SYSCALL_NR "syscallno"
#define KD_PT_REGS_RC "regs"
#define KD_PT_REGS_RC_INDEX 0
#define KD_PT_REGS_RC_EXPR "regs[0]"
#define KD_PT_REGS_UW(PC, SP, FP, LR)                                   \
    PC("pc", 0, "pc") SP("sp", 0, "sp") FP("regs", 29, "regs[29]")       \
    LR("regs", 30, "regs[30]")
#elif defined(__s390x__)
#define KD_PT_REGS_SYSCALL_NR "int_code"
#define KD_PT_REGS_RC "gprs"
#define KD_PT_REGS_RC_INDEX 2
#define KD_PT_REGS_RC_EXPR "gprs[2]"
#define KD_PT_REGS_UW(PC, SP, FP, LR)                                   \
    PC("gprs", 2, "gprs[2]") SP("gprs", 2, "gprs[2]")                    \
    FP("gprs", 2, "gprs[2]") LR("gprs", 2, "gprs[2]")
#else
#error "kernel_delay does not know this architecture's struct pt_regs"
#endif

/* Finds member 'field' of struct 'name' in 'btf', descending into
 * anonymous structs and unions.  Returns its byte offset, or -1. */
static long
kd_btf_member_offset(const struct btf *btf, int type_id, const char *field,
                     long base, long *size)
{
    const struct btf_type *t = btf__type_by_id(btf, type_id);
    const struct btf_member *m;

    if (!t || (!btf_is_struct(t) && !btf_is_union(t))) {
        return -1;
    }
    m = btf_members(t);
    for (int i = 0; i < btf_vlen(t); i++, m++) {
        const char *mname = btf__name_by_offset(btf, m->name_off);
        long off = base + btf_member_bit_offset(t, i) / 8;

        if (mname && !strcmp(mname, field)) {
            if (size) {
                *size = btf__resolve_size(btf, m->type);
            }
            return off;
        }
        if (!mname || !mname[0]) {
            long found = kd_btf_member_offset(btf, m->type, field, off,
                                              size);
            if (found >= 0) {
                return found;
            }
        }
    }
    return -1;
}

static int
kd_btf_offset(const struct btf *btf, const char *sname, const char *field,
              long *offset, long *size, char **error)
{
    int id = btf__find_by_name_kind(btf, sname, BTF_KIND_STRUCT);

    if (id < 0) {
        *error = kd_xasprintf("BTF has no struct %s", sname);
        return ENOENT;
    }
    *offset = kd_btf_member_offset(btf, id, field, 0, size);
    if (*offset < 0) {
        *error = kd_xasprintf("BTF struct %s has no member %s", sname,
                              field);
        return ENOENT;
    }
    return 0;
}

/* The plain members read from BTF: where each one's offset goes. */
struct kd_layout_member {
    const char *sname;
    const char *field;
    size_t offset;              /* Of the char[64] in struct kd_layout. */
    long index;                 /* Element of an array of 8-byte words. */
};

static const struct kd_layout_member kd_layout_members[] = {
    { "task_struct", "pid", offsetof(struct kd_layout, task_pid), 0 },
    { "task_struct", "tgid", offsetof(struct kd_layout, task_tgid), 0 },
    { "task_struct", "comm", offsetof(struct kd_layout, task_comm), 0 },
    { "irqaction", "name", offsetof(struct kd_layout, irqaction_name), 0 },
    { "pt_regs", KD_PT_REGS_SYSCALL_NR,
      offsetof(struct kd_layout, syscall_nr), 0 },
    { "pt_regs", KD_PT_REGS_RC, offsetof(struct kd_layout, regs_rc),
      KD_PT_REGS_RC_INDEX },
#define KD_UW_MEMBER(FIELD, MEMBER, INDEX, EXPR) \
    { "pt_regs", MEMBER, offsetof(struct kd_layout, FIELD), INDEX },
#define KD_UW_PC(...) KD_UW_MEMBER(regs_pc, __VA_ARGS__)
#define KD_UW_SP(...) KD_UW_MEMBER(regs_sp, __VA_ARGS__)
#define KD_UW_FP(...) KD_UW_MEMBER(regs_fp, __VA_ARGS__)
#define KD_UW_LR(...) KD_UW_MEMBER(regs_lr, __VA_ARGS__)
    KD_PT_REGS_UW(KD_UW_PC, KD_UW_SP, KD_UW_FP, KD_UW_LR)
};

/* The offset of the task's CPU number in task_struct, into '*offset'. */
static int
kd_layout_task_cpu(const struct btf *btf, long *offset, char **error)
{
    long ti, cpu, size = 0;

    if (!kd_btf_offset(btf, "task_struct", "thread_info", &ti, NULL, error)
        && !kd_btf_offset(btf, "thread_info", "cpu", &cpu, &size, error)) {
        *offset = ti + cpu;
    } else {
        free(*error);
        *error = NULL;
        if (kd_btf_offset(btf, "task_struct", "cpu", offset, &size,
                          error)) {
            return ENOENT;
        }
    }
    if (size != 4) {
        free(*error);
        *error = kd_xasprintf("BTF: the task's CPU number has size %ld",
                              size);
        return EINVAL;
    }
    return 0;
}

/* The offset of u64 'field' of struct 'type', member 'member' of
 * task_struct, into '*offset'. */
static int
kd_layout_task_u64(const struct btf *btf, const char *member,
                   const char *type, const char *field, long *offset,
                   char **error)
{
    long off, size = 0;
    int error_;

    error_ = kd_btf_offset(btf, "task_struct", member, offset, NULL, error);
    if (!error_) {
        error_ = kd_btf_offset(btf, type, field, &off, &size, error);
    }
    if (!error_ && size != 8) {
        *error = kd_xasprintf("BTF %s.%s has size %ld", type, field, size);
        error_ = EINVAL;
    }
    if (!error_) {
        *offset += off;
    }
    return error_;
}

/* The task's state, task_struct.state, __state since Linux 5.14: its
 * name, offset and size, into 'layout'. */
static int
kd_layout_task_state(struct kd_layout *layout, const struct btf *btf,
                     char **error)
{
    long off, size;
    int error_;

    layout->state_field = "__state";
    error_ = kd_btf_offset(btf, "task_struct", "__state", &off, &size,
                           error);
    if (error_) {
        free(*error);
        *error = NULL;
        layout->state_field = "state";
        error_ = kd_btf_offset(btf, "task_struct", "state", &off, &size,
                               error);
        if (error_) {
            return error_;
        }
    }
    if (size <= 0 || size > 8) {
        *error = kd_xasprintf("BTF task_struct.%s has size %ld",
                              layout->state_field, size);
        return EINVAL;
    }

    snprintf(layout->task_state, sizeof layout->task_state, "%ld", off);
    snprintf(layout->task_state_size, sizeof layout->task_state_size,
             "%ld", size);
    return 0;
}

/* The size of the syscall number in pt_regs, into 'layout': read as wide
 * as the kernel keeps it, and sign-extended (arm64's syscallno is an s32
 * that the next 32 bits, the GIC priority mask saved on entry,
 * follow). */
static int
kd_layout_syscall_nr_size(struct kd_layout *layout, const struct btf *btf,
                          char **error)
{
    long off, size;
    int error_;

    error_ = kd_btf_offset(btf, "pt_regs", KD_PT_REGS_SYSCALL_NR, &off,
                           &size, error);
    if (error_) {
        return error_;
    }
    if (size != 4 && size != 8) {
        *error = kd_xasprintf("BTF pt_regs.%s has size %ld",
                              KD_PT_REGS_SYSCALL_NR, size);
        return EINVAL;
    }
    snprintf(layout->syscall_nr_size, sizeof layout->syscall_nr_size,
             "%ld", size);
    return 0;
}

/* The task's run time, se.sum_exec_runtime, its timeslices,
 * sched_info.pcount, and its time in run queues, sched_info.run_delay,
 * which a kernel without CONFIG_SCHED_INFO does not keep (-1), into
 * 'layout'. */
static int
kd_layout_task_sched(struct kd_layout *layout, const struct btf *btf,
                     char **error)
{
    long off;
    int error_;

    error_ = kd_layout_task_u64(btf, "se", "sched_entity",
                                "sum_exec_runtime", &off, error);
    if (error_) {
        return error_;
    }
    snprintf(layout->task_sum_exec, sizeof layout->task_sum_exec, "%ld",
             off);
    if (kd_layout_task_u64(btf, "sched_info", "sched_info", "pcount", &off,
                           error)) {
        free(*error);
        *error = NULL;
        off = -1;
    }
    snprintf(layout->task_pcount, sizeof layout->task_pcount, "%ld", off);
    if (kd_layout_task_u64(btf, "sched_info", "sched_info", "run_delay",
                           &off, error)) {
        free(*error);
        *error = NULL;
        off = -1;
    }
    snprintf(layout->task_run_delay, sizeof layout->task_run_delay, "%ld",
             off);
    return 0;
}

static int
kd_layout_from_btf(struct kd_layout *layout, const struct btf *btf,
                   char **error)
{
    long off;
    int error_;

    for (size_t i = 0; i < KD_ARRAY_SIZE(kd_layout_members); i++) {
        const struct kd_layout_member *m = &kd_layout_members[i];
        char *dst = (char *) layout + m->offset;

        error_ = kd_btf_offset(btf, m->sname, m->field, &off, NULL, error);
        if (error_) {
            return error_;
        }
        snprintf(dst, KD_LAYOUT_EXPR_SIZE, "%ld", off + m->index * 8);
    }

    error_ = kd_layout_task_state(layout, btf, error);
    if (!error_) {
        error_ = kd_layout_syscall_nr_size(layout, btf, error);
    }
    if (error_) {
        return error_;
    }

    /* The task's CPU, as task_cpu() reads it: thread_info.cpu where the
     * architecture keeps thread_info in task_struct (x86_64, arm64 and
     * s390x since Linux 5.16), task_struct.cpu before. */
    error_ = kd_layout_task_cpu(btf, &off, error);
    if (error_) {
        return error_;
    }
    snprintf(layout->task_cpu, sizeof layout->task_cpu, "%ld", off);

    error_ = kd_layout_task_sched(layout, btf, error);
    if (error_) {
        return error_;
    }
    layout->includes = "";
    layout->from_btf = true;
    return 0;
}

/* Without BTF: let libbcc resolve the layout from the kernel headers. */
static void
kd_layout_from_headers(struct kd_layout *layout)
{
    struct utsname uts;
    unsigned int major = 0, minor = 0;

    /* task_struct.state became __state in Linux 5.14. */
    if (!uname(&uts)) {
        sscanf(uts.release, "%u.%u", &major, &minor);
    }
    layout->state_field = (major > 5 || (major == 5 && minor >= 14))
                          ? "__state" : "state";
    layout->from_btf = false;
    layout->includes = "#include <linux/sched.h>\n"
                       "#include <linux/interrupt.h>\n"
                       "#include <asm/ptrace.h>";
    snprintf(layout->task_pid, sizeof layout->task_pid,
             "offsetof(struct task_struct, pid)");
    snprintf(layout->task_tgid, sizeof layout->task_tgid,
             "offsetof(struct task_struct, tgid)");
    snprintf(layout->task_comm, sizeof layout->task_comm,
             "offsetof(struct task_struct, comm)");
    snprintf(layout->task_state, sizeof layout->task_state,
             "offsetof(struct task_struct, %s)", layout->state_field);
    snprintf(layout->task_state_size, sizeof layout->task_state_size,
             "sizeof(((struct task_struct *) 0)->%s)", layout->state_field);
    snprintf(layout->irqaction_name, sizeof layout->irqaction_name,
             "offsetof(struct irqaction, name)");
    /* As in kd_layout_task_cpu(). */
    snprintf(layout->task_cpu, sizeof layout->task_cpu, "%s",
             (major > 5 || (major == 5 && minor >= 16))
             ? "offsetof(struct task_struct, thread_info.cpu)"
             : "offsetof(struct task_struct, cpu)");
    snprintf(layout->task_sum_exec, sizeof layout->task_sum_exec,
             "offsetof(struct task_struct, se.sum_exec_runtime)");
    snprintf(layout->task_pcount, sizeof layout->task_pcount,
             "offsetof(struct task_struct, sched_info.pcount)");
    snprintf(layout->task_run_delay, sizeof layout->task_run_delay,
             "offsetof(struct task_struct, sched_info.run_delay)");
    snprintf(layout->syscall_nr, sizeof layout->syscall_nr,
             "offsetof(struct pt_regs, %s)", KD_PT_REGS_SYSCALL_NR);
    snprintf(layout->syscall_nr_size, sizeof layout->syscall_nr_size,
             "sizeof(((struct pt_regs *) 0)->%s)", KD_PT_REGS_SYSCALL_NR);
    snprintf(layout->regs_rc, sizeof layout->regs_rc,
             "offsetof(struct pt_regs, %s)", KD_PT_REGS_RC_EXPR);
#define KD_UW_EXPR(FIELD, MEMBER, INDEX, EXPR)                          \
    snprintf(layout->FIELD, sizeof layout->FIELD,                       \
             "offsetof(struct pt_regs, %s)", EXPR);
#define KD_UW_PC_EXPR(...) KD_UW_EXPR(regs_pc, __VA_ARGS__)
#define KD_UW_SP_EXPR(...) KD_UW_EXPR(regs_sp, __VA_ARGS__)
#define KD_UW_FP_EXPR(...) KD_UW_EXPR(regs_fp, __VA_ARGS__)
#define KD_UW_LR_EXPR(...) KD_UW_EXPR(regs_lr, __VA_ARGS__)
    KD_PT_REGS_UW(KD_UW_PC_EXPR, KD_UW_SP_EXPR, KD_UW_FP_EXPR,
                  KD_UW_LR_EXPR)
}

int
kd_layout_init(struct kd_layout *layout, bool no_btf, char **error)
{
    struct btf *btf;
    int error_;

    memset(layout, 0, sizeof *layout);
    *error = NULL;
    if (no_btf) {
        kd_layout_from_headers(layout);
        return 0;
    }

    btf = btf__load_vmlinux_btf();
    if (!btf) {
        kd_layout_from_headers(layout);
        return 0;
    }
    error_ = kd_layout_from_btf(layout, btf, error);
    btf__free(btf);
    return error_;
}
