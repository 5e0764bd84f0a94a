/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_WAITER_H
#define KD_WAITER_H 1

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct kd_events;
struct kd_http;

/* What the waits wait for besides time: SIGINT, SIGTERM and SIGHUP, and
 * the target's exit (a pidfd, readable once the process is gone).  The
 * first signal ends the sample in progress, which is still reported; a
 * second one ends the program at once, and the kernel detaches every eBPF
 * program with the file descriptors that hold them.
 *
 * With --metrics, every wait also serves the metrics endpoint ('http'):
 * its sockets are polled beside the rest, and what they are ready for is
 * done at once, without ending the wait. */
struct kd_waiter {
    sigset_t signals;       /* The signals caught. */
    unsigned int tgid;
    int pidfd;              /* -1 where the kernel has no pidfd_open(). */
    bool target_exited;
    struct kd_http *http;   /* The endpoint served meanwhile, or NULL. */
};

/* Catches the signals from now on, and opens the target's pidfd; serves
 * 'http' (NULL: none) in every wait. */
void kd_waiter_init(struct kd_waiter *, unsigned int tgid,
                    struct kd_http *http);
void kd_waiter_destroy(struct kd_waiter *);

/* Follows process 'tgid' from now on (--wait-target), or no process
 * when 'tgid' is 0: the target has not exited. */
void kd_waiter_retarget(struct kd_waiter *, unsigned int tgid);

/* Whether the waits are over: a signal came, or the target exited. */
bool kd_waiter_done(const struct kd_waiter *);

/* Whether a signal came. */
bool kd_waiter_signalled(void);

/* Sleeps until monotonic time 'deadline_ns', a signal, the target's exit,
 * or, when 'events' is not NULL, events (which it consumes), serving the
 * endpoint meanwhile.  Returns 0 or a positive errno. */
int kd_wait(struct kd_waiter *, struct kd_events *events,
            uint64_t deadline_ns);

#endif /* waiter.h */
