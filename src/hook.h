/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_HOOK_H
#define KD_HOOK_H 1

#include <stdbool.h>
#include <stdint.h>

#include "program.h"
#include "trigger.h"

/* A trigger made real: checked against the target and the kernel before
 * anything is compiled, then attached to one of the program's trigger
 * functions. */
struct kd_hook {
    const struct kd_trigger *trigger;
    const char *role;       /* "start" or "stop". */
    const char *func;       /* Its function: kd_start_trigger_probe, ... */
    unsigned int pid;
    void *usdt;             /* USDT context; kept open while attached, as
                             * closing it lowers the probes' semaphores. */
    char *binary;           /* Uprobes: resolved file and offset. */
    uint64_t offset;
};

/* The program's function for start and stop triggers. */
#define KD_START_TRIGGER_FUNC "kd_start_trigger_probe"
#define KD_STOP_TRIGGER_FUNC "kd_stop_trigger_probe"

/* Checks that 'trigger', a start trigger if 'start' or else a stop
 * trigger, can be attached in process 'pid' on this kernel
 * and resolves what it needs.  Returns 0; EINVAL when the trigger names
 * something that does not exist or that this kernel cannot trace; or
 * another positive errno when it cannot be attached.  Either way with a
 * message in '*error'.  Call kd_hook_close() in any case. */
int kd_hook_prepare(struct kd_hook *, const struct kd_trigger *,
                    bool start, unsigned int pid, char **error);

/* C code the program needs for this hook (USDT argument readers), or
 * NULL. */
char *kd_hook_code(struct kd_hook *);

/* Attaches the hook's function in 'prog'.  Returns 0 or a positive errno
 * with a message in '*error'. */
int kd_hook_attach(struct kd_hook *, struct kd_program *,
                   unsigned int debug, char **error);

void kd_hook_close(struct kd_hook *);

/* Where tracefs and debugfs belong (kd_host_mount_tracefs() mounts them
 * there when they are not). */
#define KD_TRACEFS_DIR "/sys/kernel/tracing"
#define KD_DEBUGFS_DIR "/sys/kernel/debug"

/* The tracefs directory, wherever it is mounted: KD_TRACEFS_DIR, else its
 * place under debugfs (kernels before 4.1, or a failed mount). */
const char *kd_hook_tracefs(void);

/* Whether this kernel has kprobes (a kprobe PMU, or kprobe_events in
 * tracefs). */
bool kd_hook_kprobes_available(void);

/* Whether kernel function 'func' can be traced with a k(ret)probe here.
 * If so and 'module' is nonnull, '*module' is the name of the module it
 * belongs to (to be freed), or NULL when it is part of the kernel itself.
 * If not, '*why' (to be freed) says why. */
bool kd_hook_kernel_function_ok(const char *func, char **module,
                                char **why);

/* Lists the USDT probes of process 'pid' into a new string '*list', one
 * "provider:name" per line with binary and number of locations.  Returns
 * the number of probes, or -1 when the process cannot be read. */
int kd_hook_list_usdt(unsigned int pid, char **list);

#endif /* hook.h */
