/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Waits for a deadline, a signal, the target's exit or events. */

#include "waiter.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "events.h"
#include "util.h"

/* Set by the signal handler, and only there. */
static volatile sig_atomic_t kd_signalled;

static void
kd_on_signal(int signo)
{
    if (kd_signalled) {
        _exit(128 + signo);
    }
    kd_signalled = signo;
}

void
kd_waiter_init(struct kd_waiter *w, unsigned int tgid)
{
    static const int signals[] = { SIGINT, SIGTERM, SIGHUP };
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = kd_on_signal;
    sigemptyset(&sa.sa_mask);
    sigemptyset(&w->signals);
    for (size_t i = 0; i < KD_ARRAY_SIZE(signals); i++) {
        sigaction(signals[i], &sa, NULL);
        sigaddset(&w->signals, signals[i]);
    }
    w->pidfd = -1;
    kd_waiter_retarget(w, tgid);
}

void
kd_waiter_retarget(struct kd_waiter *w, unsigned int tgid)
{
    if (w->pidfd >= 0) {
        close(w->pidfd);
    }
    w->tgid = tgid;
    w->pidfd = tgid ? syscall(SYS_pidfd_open, tgid, 0) : -1;
    w->target_exited = false;
}

void
kd_waiter_destroy(struct kd_waiter *w)
{
    if (w->pidfd >= 0) {
        close(w->pidfd);
    }
}

bool
kd_waiter_signalled(void)
{
    return kd_signalled;
}

bool
kd_waiter_done(const struct kd_waiter *w)
{
    return kd_signalled || w->target_exited;
}

/* The signals are blocked from the test of kd_signalled until ppoll()
 * atomically lets them in, so that none is missed; they are never blocked
 * otherwise. */
int
kd_wait(struct kd_waiter *w, struct kd_events *events, uint64_t deadline_ns)
{
    sigset_t old;
    int err = 0;

    sigprocmask(SIG_BLOCK, &w->signals, &old);
    while (!kd_signalled && !w->target_exited && !err) {
        uint64_t now = kd_now_ns();
        uint64_t left = deadline_ns > now ? deadline_ns - now : 0;
        struct timespec ts = {
            .tv_sec = left / 1000000000ull,
            .tv_nsec = left % 1000000000ull,
        };

        if (!left) {
            break;
        }
        if (events) {
            err = kd_events_wait(events, w->pidfd, &ts, &old,
                                 &w->target_exited);
            if (!err) {
                break;
            }
            err = err == EINTR ? 0 : err;
        } else {
            struct pollfd pfd = { .fd = w->pidfd, .events = POLLIN };

            if (ppoll(&pfd, w->pidfd >= 0, &ts, &old) > 0) {
                w->target_exited = true;
            }
        }
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (w->pidfd < 0 && w->tgid && kill(w->tgid, 0) && errno == ESRCH) {
        /* No pidfd (before Linux 5.3): look for the process itself. */
        w->target_exited = true;
    }
    return err;
}
