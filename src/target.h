/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_TARGET_H
#define KD_TARGET_H 1

#include <stdint.h>

/* What happens to the target under --wait-target (the "event" of the
 * "target" JSON record): the tool waits for ovs-vswitchd, attaches to a
 * process, or loses it when it exits. */
#define KD_TARGET_EVENTS(KD_TARGET_EVENT)                               \
    KD_TARGET_EVENT(WAITING, "waiting")                                 \
    KD_TARGET_EVENT(ATTACHED, "attached")                               \
    KD_TARGET_EVENT(LOST, "lost")

enum kd_target_event {
#define KD_TARGET_EVENT_ID(ID, NAME) KD_TARGET_##ID,
    KD_TARGET_EVENTS(KD_TARGET_EVENT_ID)
#undef KD_TARGET_EVENT_ID
    KD_N_TARGET_EVENTS
};

/* The name of 'event', as the JSON record has it. */
const char *kd_target_event_name(enum kd_target_event event);

/* Finds the one running process whose name contains "ovs-vswitchd", as
 * the reference does.  Returns 0 and its pid, ENOENT when there is none,
 * or EEXIST when there are several. */
int kd_target_find_vswitchd(const char *proc_root, unsigned int *pid);

/* Checks that process or thread 'pid' exists and gives the process it
 * belongs to in '*tgid' (different from 'pid' for a thread id).  Returns 0
 * or ESRCH. */
int kd_target_resolve(const char *proc_root, unsigned int pid,
                      unsigned int *tgid);

/* The current name of thread 'tid' of process 'pid' from /proc, or NULL
 * when it is gone.  Suits kd_sample_group(); 'aux' is the /proc root (NULL
 * for "/proc"). */
char *kd_target_thread_name(uint32_t pid, uint32_t tid, void *aux);

/* How many threads process 'pid' has now (entries of /proc/PID/task
 * under 'proc_root', NULL for "/proc"); 0 when it is gone. */
unsigned int kd_target_count_threads(const char *proc_root,
                                     unsigned int pid);

#endif /* target.h */
