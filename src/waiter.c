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
#include "http.h"
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
kd_waiter_init(struct kd_waiter *w, unsigned int tgid, struct kd_http *http)
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
    w->http = http;
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
 * otherwise.  The ring buffer's events end the wait, as the target's exit
 * and signals do; the endpoint's sockets do not: what they are ready for
 * is done, and the wait goes on, woken again at the endpoint's next
 * deadline. */
int
kd_wait(struct kd_waiter *w, struct kd_events *events, uint64_t deadline_ns)
{
    sigset_t old;
    int err = 0;

    sigprocmask(SIG_BLOCK, &w->signals, &old);
    while (!kd_signalled && !w->target_exited && !err) {
        struct pollfd fds[2 + 1 + KD_HTTP_MAX_CONNS];
        uint64_t now = kd_now_ns(), until = deadline_ns;
        size_t n = 0, n_own;
        struct timespec ts;
        bool woken;
        int rc;

        if (now >= deadline_ns) {
            break;
        }
        if (events) {
            fds[n++] = (struct pollfd) {
                .fd = kd_events_fd(events), .events = POLLIN,
            };
        }
        if (w->pidfd >= 0) {
            fds[n++] = (struct pollfd) { .fd = w->pidfd, .events = POLLIN };
        }
        n_own = n;
        if (w->http) {
            n += kd_http_fds(w->http, fds + n);
            until = KD_MIN(until, KD_MAX(kd_http_deadline(w->http), now));
        }
        ts.tv_sec = (until - now) / 1000000000ull;
        ts.tv_nsec = (until - now) % 1000000000ull;
        rc = ppoll(fds, n, &ts, &old);
        if (rc < 0 && errno != EINTR) {
            err = errno;
            break;
        }
        woken = false;
        for (size_t i = 0; rc > 0 && i < n_own; i++) {
            if (fds[i].revents && fds[i].fd == w->pidfd) {
                w->target_exited = true;
            } else if (fds[i].revents) {
                woken = true;
            }
        }
        if (w->http) {
            kd_http_serve(w->http, fds + n_own, n - n_own, kd_now_ns());
        }
        if (events) {
            rc = kd_events_consume(events);
            if (rc < 0) {
                err = EIO;
            } else if (rc > 0 || woken) {
                break;
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
