/*
 * workload: a process with OVS-like thread names that does exactly known
 * things on command, so that the end-to-end tests (tests/e2e.sh) can check
 * the numbers kernel_delay reports against what really happened.
 *
 * Usage:
 *   workload --ctl FIFO --reply PATH [--name NAME] [--io-dir DIR]
 *            [--die-with-parent]
 *
 * The main thread (named NAME, default "kd-workload") reads commands, one per
 * line, from the control FIFO and answers each with one line on the reply
 * FIFO (or file): "done", "done EXTRA" or "error MESSAGE".  On start-up it
 * prints one "TID NAME" line per worker thread, then "ready", on stdout.
 *
 * Commands:
 *   syscalls N M     handler1: N getppid() and M 10 ms clock_nanosleep().
 *   traced N MS      handler1: calls kd_workload_traced_job(N, MS), which
 *                    fires USDT probe kd_workload:job_start, makes exactly N
 *                    getppid() and, if MS > 0, one MS ms clock_nanosleep(),
 *                    then fires kd_workload:job_end.  For start and stop
 *                    triggers on USDT probes, and on the function's entry
 *                    and return (uprobes).  Replies "done job_ns=NS", the
 *                    job's length timed from user space.
 *   events N M P     handler1: exactly N getppid(), then M 5 ms
 *                    clock_nanosleep() made by kd_workload_slow_syscall()
 *                    itself (an inline "syscall" instruction, so that it is
 *                    the innermost frame of the user stack, which a libc
 *                    wrapper without a frame pointer would hide), then P
 *                    poll(NULL, 0, 5) (5 ms each).
 *   spin MS          handler1: getppid() as fast as it can for MS ms.
 *                    Replies "done count=N" with the number of calls.
 *   traced-repeat N MS  handler1: "traced 10 0" N times, MS ms apart (for
 *                    long runs of triggered samples).
 *   spawn-many N     Main: starts N threads one after the other, each
 *                    making 3 getppid() and exiting, and joins them: more
 *                    distinct threads than a small --max-threads allows.
 *   bracketed N      handler1: sched_yield(), exactly N getppid(), then
 *                    getpgid(0): for tracepoint triggers on
 *                    syscalls:sys_exit_sched_yield and
 *                    syscalls:sys_enter_getpgid.
 *                    Replies "done sleep_total_ns=T sleep_max_ns=X", the
 *                    sleeps' durations as timed from user space.
 *   poll K MS        revalidator2: K+1 poll(NULL, 0, 0) calls, with a busy
 *                    spin of MS ms between two consecutive ones.  Replies
 *                    "done gap_min_ns=A gap_max_ns=B gap_avg_ns=C
 *                    outer_min_ns=D outer_max_ns=E outer_avg_ns=F", the
 *                    spins' durations as timed from user space, and the
 *                    same from before the poll() before each spin to
 *                    after the one after it (K > 0).
 *   contend MS CPU   pmd4 pins itself to CPU and spins; urcu3 pins itself to
 *                    the same CPU and busy-spins for MS ms of wall time, so
 *                    it waits in the run queue about half of that time.
 *                    The main thread makes both SCHED_RR (priority 1)
 *                    for the job, from its start to after both blocked
 *                    again: the CPU is theirs, whatever else runs on the
 *                    machine, and they take turns (100 ms timeslices by
 *                    default); urcu3 then lets pmd4 stop.
 *   longpoll SPIN SLEEP CONTEND CPU
 *   longpoll-stop SPIN SLEEP CONTEND CPU
 *                    One long poll interval of revalidator2, of known
 *                    parts.  pmd4 pins itself to CPU and spins (the hog);
 *                    revalidator2 makes LONGPOLL_SHORT short intervals (1 ms
 *                    spins between poll(NULL, 0, 0) calls), reads its own
 *                    schedstat, calls poll() and, in the long interval:
 *                    spins SPIN ms of wall time; sleeps SLEEP ms in one
 *                    clock_nanosleep(), between two pread() of its
 *                    status and two of its schedstat; has pmd4 hold CPU
 *                    under SCHED_FIFO for the next CONTEND ms (so that no
 *                    ordinary task can take that CPU, whatever else runs
 *                    on the machine), pins itself to CPU (one
 *                    sched_setaffinity()) and waits there in the run
 *                    queue behind pmd4, nearly all of those CONTEND ms,
 *                    then lets pmd4 stop; with longpoll-stop, stops the whole
 *                    process (one getpid(), one gettid() and one
 *                    tgkill(SIGSTOP) to itself), for the caller to SIGCONT.
 *                    Then it calls poll() again and reads its schedstat.
 *                    Replies "done gap_ns=G sleep_ns=S stop_ns=T run_ns=R
 *                    wait_ns=W slices=N edges_ns=E short_max_ns=M
 *                    pre_ns=P sleep_wait_ns=Q sleep_run_ns=U
 *                    sleep_preempted=V short_outer_max_ns=O": the
 *                    interval and
 *                    the sleep and the stop (from just before tgkill() to
 *                    just after it returned) timed from user space; around
 *                    the interval, the thread's CPU time (its CPU-time
 *                    clock) and its schedstat's run-queue wait and
 *                    timeslices, read just outside the interval (E: the
 *                    time between those reads and the interval's bounds);
 *                    the longest of the 1 ms intervals timed inside (M,
 *                    the spin) and outside (O, from before the poll()
 *                    that opens one to after the one that closes it
 *                    returned), and the length of
 *                    the short interval that holds the first schedstat
 *                    read (from the poll() before it to the one after);
 *                    the run-queue wait of its schedstat around the
 *                    sleep (Q: the time in clock_nanosleep() spent waiting
 *                    for a CPU, not asleep, is at most that, unless it was
 *                    preempted there), its run time there (U: the time
 *                    on a CPU in clock_nanosleep() before it slept is at
 *                    most that; under emulation, a virtual CPU can stand
 *                    still there for milliseconds) and its preemptions
 *                    around the sleep
 *                    (V, from nonvoluntary_ctxt_switches: schedstat leaves
 *                    out the wait that follows a preemption of a thread
 *                    whose state is no longer running, as on its way to
 *                    sleep).
 *   usersys USER KERNEL
 *                    One poll interval of revalidator2 whose time on CPU
 *                    is known in user space and in the kernel, under
 *                    SCHED_FIFO (priority 1, set before the interval and
 *                    reset after it) so that no ordinary task preempts it
 *                    and getrusage()'s split, sampled at the ticks, stays
 *                    close.  Between two poll(NULL, 0, 0) calls:
 *                    getrusage(RUSAGE_THREAD), its CPU-time clock (a
 *                    clock_gettime() syscall), a spin of USER ms of wall
 *                    time in user space (usersys_user(), no syscall), the
 *                    clock again, read()s of 16 MiB from /dev/zero for
 *                    KERNEL ms (usersys_kernel()), the clock and
 *                    getrusage() again; the CPU-time clock is also read
 *                    first and last.  Replies "done gap_ns=G user_ns=U
 *                    kernel_ns=K ru_user_ns=RU ru_sys_ns=RS preempted=P
 *                    reads=N cpu_ns=C": the interval timed from user
 *                    space, the CPU-time clock's growth over each of the
 *                    two parts, getrusage()'s user and system time's
 *                    growth over the interval and its involuntary context
 *                    switches, the read()s, and the clock's growth from
 *                    the first poll()'s return to the second's call.
 *   handoff MS       One poll interval of revalidator2 (under SCHED_FIFO,
 *                    as in usersys) blocked in one read() of a pipe, made
 *                    in kd_workload_handoff_wait() with the syscall
 *                    instruction, until handler1, MS ms after revalidator2
 *                    said it was about to read, writes the pipe in
 *                    kd_workload_handoff_send() likewise.  Replies "done
 *                    gap_ns=G read_ns=R read_cpu_ns=C waker_tid=T": the
 *                    interval and the read() timed from user space, the
 *                    thread's CPU-time clock's growth around the read()
 *                    (at least its time on a CPU within it), and
 *                    handler1's TID.
 *   deep SPIN MS     One poll interval of revalidator2 whose stacks are
 *                    known five calls deep, through libc, for the
 *                    unwinder: it spins SPIN ms of wall time in
 *                    kd_deep_leaf(), called by kd_deep_d(), ..., by
 *                    kd_deep_a(); then blocks in libc's read() of a pipe,
 *                    called by kd_read_e(), ..., by kd_read_a(), until
 *                    handler1, MS ms after revalidator2 said it was about
 *                    to read, writes the pipe with libc's write(), called
 *                    by kd_write_b() and kd_write_a().  Built without
 *                    frame pointers (tests/workload-nofp), as packages
 *                    are, nothing but the call frame information finds
 *                    the callers of libc's functions and of the leaves.
 *                    Replies "done gap_ns=G spin_ns=S read_ns=R
 *                    waker_tid=T".
 *   dlspin PATH SPIN revalidator2: in one poll interval, loads library
 *                    PATH (tests/libkdunwind.so) with dlopen(), the first
 *                    time, and spins 20 ms in its kd_lib_leaf(), called by
 *                    kd_lib_b(), called by kd_lib_a(); sleeps 500 ms in a
 *                    poll(); then, in the next interval, spins SPIN ms
 *                    there.  Replies "done spin_ns=S": the second spin,
 *                    timed from user space.
 *   recurse N SPIN   revalidator2: in one poll interval, kd_recurse()
 *                    calls itself N times, then kd_deep_leaf() spins
 *                    SPIN ms: a stack N + 1 calls deep (for the
 *                    unwinder's depth).
 *   stuck MS         revalidator2: one poll interval spent in one
 *                    clock_nanosleep() of MS ms, between two
 *                    poll(NULL, 0, 0) calls.  Replies "done gap_ns=G":
 *                    the interval, timed from user space.
 *   udp N            handler5: N times, sendto() one datagram to a loopback
 *                    UDP socket it owns, then recvfrom() it (blocking).
 *   irqspin MS CPU   irq6 pins itself to CPU and spins for MS ms, while io7,
 *                    pinned to another CPU, does O_DIRECT 4 KiB pwrite() +
 *                    fdatasync() to a file in DIR for as long, so that block
 *                    device interrupts hit irq6.
 *   spawn-exit NAME  Main: starts a thread that names itself NAME, makes
 *                    3 getppid() and exits.  Replies "done TID".
 *   rename WORKER HEX  The worker first named WORKER (handler1, ...) names
 *                    itself with prctl(PR_SET_NAME) the 1 to 15 bytes,
 *                    none 0, that HEX spells in hexadecimal ("1b5b33316d"
 *                    is ESC "[31m"): any name a thread can have, though
 *                    commands are words on a line.  Its job's syscalls are
 *                    that prctl() and the completion write().
 *   ping             Replies "done".
 *   quit             Replies "done" and exits with status 0.
 *
 * Syscall accounting.  Every worker spends its idle time blocked in read()
 * on its own job pipe.  When the main thread writes a job there, the worker
 * returns from that read(), does the job, reports completion to the main
 * thread with exactly one write() on the shared completion pipe, and enters
 * read() again.  So, in a sample window that opens while the worker is
 * blocked and closes after the job, the syscalls the worker *completes*
 * (enters and leaves inside the window) are exactly the job's syscalls plus
 * that one write():
 *   - the read() that returns with the job was entered before the window;
 *   - the next read() is entered but does not return inside the window.
 * Busy spins use clock_gettime(CLOCK_MONOTONIC), which the vDSO serves
 * without a syscall (with the usual tsc or kvm-clock clock sources).
 *
 * Before replying "done", the main thread waits until every worker the job
 * used is blocked in read() again (state S in syscall 0, read from /proc),
 * so the caller can read exact /proc/PID/task/TID/schedstat values as soon
 * as it sees the reply.
 */

#define _GNU_SOURCE

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/sdt.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_SEC 1000000000ULL

/* Upper bound for durations given in commands, in milliseconds. */
#define MAX_MSEC 60000

/* Upper bound for repetition counts given in commands. */
#define MAX_COUNT 10000000

/* How long the main thread waits for a worker to block again. */
#define BLOCK_WAIT_NS (5 * NSEC_PER_SEC)

/* Size of one O_DIRECT write, and number of blocks the io7 file cycles
 * over. */
#define IO_BLOCK_SIZE 4096
#define IO_FILE_BLOCKS 256

enum worker_id {
    W_HANDLER1,
    W_REVALIDATOR2,
    W_URCU3,
    W_PMD4,
    W_HANDLER5,
    W_IRQ6,
    W_IO7,
    N_WORKERS
};

enum job_type {
    JOB_SYSCALLS,        /* arg[0] getppid(), arg[1] 10 ms sleeps. */
    JOB_TRACED,          /* kd_workload_traced_job(arg[0], arg[1]). */
    JOB_BRACKETED,       /* sched_yield(), arg[0] getppid(), getpgid(). */
    JOB_EVENTS,          /* arg[0] getppid(), arg[1] slow, arg[2] polls. */
    JOB_GETPPID_SPIN,    /* getppid() for arg[0] ms. */
    JOB_TRACED_REPEAT,   /* arg[0] traced jobs, arg[1] ms apart. */
    JOB_POLL,            /* arg[0] + 1 polls, arg[1] ms spin between. */
    JOB_SPIN,            /* Pin to CPU arg[1], spin arg[0] ms, then set
                          * 'pmd_stop' if arg[2]. */
    JOB_SPIN_UNTIL_STOP, /* Pin to CPU arg[1], spin until 'pmd_stop'
                          * (see job_spin_until_stop()). */
    JOB_UDP,             /* arg[0] datagrams sent and received. */
    JOB_DIRECT_IO,       /* Pin to CPU arg[1], write for arg[0] ms. */
    JOB_RENAME,          /* prctl(PR_SET_NAME, rename_to). */
    JOB_LONGPOLL,        /* arg[0] spin, [1] sleep, [2] contend ms, CPU
                          * [3], SIGSTOP if [4]. */
    JOB_STUCK,           /* One interval asleep for arg[0] ms. */
    JOB_USERSYS,         /* arg[0] ms in user space, arg[1] in the
                          * kernel, in one poll interval. */
    JOB_HANDOFF_WAIT,    /* One poll interval in a read() of the pipe. */
    JOB_HANDOFF_SEND,    /* Write the pipe arg[0] ms after the read. */
    JOB_DEEP_WAIT,       /* "deep": spin arg[0] ms, then read the pipe. */
    JOB_DEEP_SEND,       /* "deep": write it arg[0] ms after the read. */
    JOB_DLSPIN,          /* "dlspin": spin arg[0] ms in dlspin_path. */
    JOB_RECURSE,         /* "recurse": arg[0] calls deep, spin arg[1]. */
};

struct job {
    enum job_type type;
    long arg[5];
};

/* "longpoll": the short intervals before the long one, and their spin. */
#define LONGPOLL_SHORT 5
#define LONGPOLL_SHORT_NS NSEC_PER_MSEC

/* What a worker writes on the completion pipe, in one write(). */
struct done_msg {
    int32_t worker;             /* enum worker_id. */
    int32_t error;              /* 0, or the errno value of the failure. */
};

struct worker {
    const char *name;
    pid_t tid;                  /* Set by the thread itself at start. */
    int job_fd[2];              /* Main writes jobs to [1], worker reads. */
    pthread_t thread;
};

static struct worker workers[N_WORKERS] = {
    [W_HANDLER1] = { .name = "handler1" },
    [W_REVALIDATOR2] = { .name = "revalidator2" },
    [W_URCU3] = { .name = "urcu3" },
    [W_PMD4] = { .name = "pmd4" },
    [W_HANDLER5] = { .name = "handler5" },
    [W_IRQ6] = { .name = "irq6" },
    [W_IO7] = { .name = "io7" },
};

/* Completion pipe: all workers write to [1], the main thread reads [0]. */
static int done_fd[2];

/* handler5's loopback UDP sockets, created before any job. */
static int udp_rx_fd = -1;
static int udp_tx_fd = -1;
static struct sockaddr_in udp_rx_addr;

/* io7's file and its O_DIRECT buffer. */
static char io_path[PATH_MAX];
static char io_buf[IO_BLOCK_SIZE] __attribute__((aligned(IO_BLOCK_SIZE)));

/* Hand-shake between the main thread, pmd4 and revalidator2 for
 * "contend" and "longpoll": pmd4 says it spins; revalidator2 asks it for
 * the real-time hog (pmd_fifo), which it reports as on or failed
 * (pmd_fifo_state, 1 or -errno), until pmd_stop_at; pmd_stop ends the
 * spin. */
static atomic_bool pmd_spinning;
static atomic_bool pmd_stop;
static atomic_bool pmd_fifo;
static atomic_int pmd_fifo_state;
static _Atomic uint64_t pmd_stop_at;

/* What a job measured itself, in user space, for the caller to compare with
 * the tool's numbers.  Written by the worker before its completion write(),
 * read by the main thread after reading that completion. */
struct interval_stats {
    uint64_t total_ns;          /* Sum of the measured intervals. */
    uint64_t min_ns;            /* Shortest one. */
    uint64_t max_ns;            /* Longest one. */
};

static struct interval_stats job_stats;

/* "poll": each interval from just before the poll() call that begins it to
 * just after the one that ends it returns. */
static struct interval_stats job_outer_stats;

/* What "longpoll" measured (see the top of the file); written and read as
 * job_stats is. */
static struct {
    uint64_t gap_ns, sleep_ns, sleep_wait_ns, sleep_run_ns, sleep_preempted;
    uint64_t stop_ns, short_max_ns, short_outer_max_ns, pre_ns;
    uint64_t run_ns, wait_ns, slices, edges_ns;
} longpoll_stats;

/* The name for "rename", written by the main thread before it dispatches
 * the job. */
static char rename_to[16];

/* Thread name for "spawn-exit", and the thread's TID. */
static char exiter_name[16];
static atomic_int exiter_tid;

static void fatal(const char *format, ...)
    __attribute__((format(printf, 1, 2), noreturn));

static void
fatal(const char *format, ...)
{
    va_list args;

    fprintf(stderr, "workload: ");
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fputc('\n', stderr);
    exit(EXIT_FAILURE);
}

/* Monotonic time in ns.  Served by the vDSO: no syscall. */
static uint64_t
now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* Burns CPU for 'ns' nanoseconds of wall time, without any syscall.  Time
 * spent preempted counts, so this returns 'ns' after it was called. */
static void
spin_ns(uint64_t ns)
{
    uint64_t start = now_ns();

    while (now_ns() - start < ns) {
        continue;
    }
}

/* Sleeps for 'ns' nanoseconds; only used by the main thread. */
static void
sleep_ns(uint64_t ns)
{
    struct timespec ts = {
        .tv_sec = ns / NSEC_PER_SEC,
        .tv_nsec = ns % NSEC_PER_SEC,
    };

    while (nanosleep(&ts, &ts) && errno == EINTR) {
        continue;
    }
}

/* Pins the calling thread to 'cpu'.  One sched_setaffinity() syscall.
 * Returns 0 or an errno value. */
static int
pin_self(int cpu)
{
    cpu_set_t set;

    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set) ? errno : 0;
}

static void
interval_stats_reset(struct interval_stats *s)
{
    s->total_ns = 0;
    s->min_ns = UINT64_MAX;
    s->max_ns = 0;
}

static void
interval_stats_add(struct interval_stats *s, uint64_t ns)
{
    s->total_ns += ns;
    if (ns < s->min_ns) {
        s->min_ns = ns;
    }
    if (ns > s->max_ns) {
        s->max_ns = ns;
    }
}

static void
job_stats_reset(void)
{
    interval_stats_reset(&job_stats);
    interval_stats_reset(&job_outer_stats);
}

static void
job_stats_add(uint64_t ns)
{
    interval_stats_add(&job_stats, ns);
}

/* "syscalls N M": exactly N getppid() and M clock_nanosleep() of 10 ms.
 * Raw syscall() so that the C library cannot add or hide anything.  Each
 * sleep is timed from user space (job_stats): the kernel's view of the
 * syscall's duration cannot be longer. */
static int
job_syscalls(long n_getppid, long n_sleep)
{
    struct timespec ts = { .tv_sec = 0, .tv_nsec = 10 * NSEC_PER_MSEC };
    long i;

    job_stats_reset();
    for (i = 0; i < n_getppid; i++) {
        syscall(SYS_getppid);
    }
    for (i = 0; i < n_sleep; i++) {
        uint64_t start = now_ns();

        syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &ts, NULL);
        job_stats_add(now_ns() - start);
    }
    return 0;
}

/* "traced N MS": between USDT probes kd_workload:job_start and
 * kd_workload:job_end, exactly N getppid() and, if MS > 0, one
 * clock_nanosleep() of MS ms, and nothing else.  Global and not inlined,
 * so that it can be traced by name with uprobes too. */
void kd_workload_traced_job(long n, long ms);

__attribute__((noinline)) void
kd_workload_traced_job(long n, long ms)
{
    struct timespec ts = { .tv_sec = ms / 1000,
                           .tv_nsec = (ms % 1000) * NSEC_PER_MSEC };
    long i;

    DTRACE_PROBE1(kd_workload, job_start, n);
    for (i = 0; i < n; i++) {
        syscall(SYS_getppid);
    }
    if (ms > 0) {
        syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &ts, NULL);
    }
    DTRACE_PROBE1(kd_workload, job_end, n);
}

static int
job_traced(long n, long ms)
{
    uint64_t start;

    job_stats_reset();
    start = now_ns();
    kd_workload_traced_job(n, ms);
    job_stats_add(now_ns() - start);
    return 0;
}

/* poll(NULL, 0, MS) as the syscall glibc's poll() makes: poll, or ppoll
 * where the architecture has no poll (arm64), which kernel_delay then takes
 * for poll.  Made with syscall() so that no library can change which. */
static void
wl_poll(long ms)
{
#if defined(SYS_poll)
    syscall(SYS_poll, NULL, 0, ms);
#else
    struct timespec ts = { .tv_sec = ms / 1000,
                           .tv_nsec = ms % 1000 * NSEC_PER_MSEC };

    syscall(SYS_ppoll, NULL, 0, &ts, NULL, 0);
#endif
}

/* A 5 ms clock_nanosleep() made with the syscall instruction right here,
 * so that this function is the innermost user frame of the syscall's
 * stack.  Global and not inlined, so that it has a symbol. */
void kd_workload_slow_syscall(void);

__attribute__((noinline)) void
kd_workload_slow_syscall(void)
{
    struct timespec ts = { .tv_sec = 0, .tv_nsec = 5 * NSEC_PER_MSEC };

#if defined(__x86_64__)
    long ret;
    register long r10 __asm__("r10") = 0;

    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "a"((long) SYS_clock_nanosleep),
                       "D"((long) CLOCK_MONOTONIC), "S"(0L), "d"(&ts),
                       "r"(r10)
                     : "rcx", "r11", "memory");
    (void) ret;
#elif defined(__aarch64__)
    register long x8 __asm__("x8") = SYS_clock_nanosleep;
    register long x0 __asm__("x0") = CLOCK_MONOTONIC;
    register long x1 __asm__("x1") = 0;
    register long x2 __asm__("x2") = (long) &ts;
    register long x3 __asm__("x3") = 0;

    __asm__ volatile("svc #0"
                     : "+r"(x0)
                     : "r"(x8), "r"(x1), "r"(x2), "r"(x3)
                     : "memory");
#else
    syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &ts, NULL);
#endif
}

/* Syscall 'nr' with three arguments, made with the syscall instruction
 * right where it is inlined (see kd_workload_slow_syscall()). */
static inline __attribute__((always_inline)) long
raw_syscall3(long nr, long a, long b, long c)
{
#if defined(__x86_64__)
    long ret;

    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "a"(nr), "D"(a), "S"(b), "d"(c)
                     : "rcx", "r11", "memory");
    return ret;
#elif defined(__aarch64__)
    register long x8 __asm__("x8") = nr;
    register long x0 __asm__("x0") = a;
    register long x1 __asm__("x1") = b;
    register long x2 __asm__("x2") = c;

    __asm__ volatile("svc #0"
                     : "+r"(x0)
                     : "r"(x8), "r"(x1), "r"(x2)
                     : "memory");
    return x0;
#else
    return syscall(nr, a, b, c);
#endif
}

static int set_policy(pid_t tid, int policy);

/* "handoff": the pipe, whether revalidator2 is about to read it, and what
 * it measured. */
static int handoff_pipe[2] = { -1, -1 };
static atomic_bool handoff_reading;
static struct {
    uint64_t gap_ns;
    uint64_t read_ns;
    uint64_t read_cpu_ns;
} handoff_stats;

static uint64_t thread_cpu_ns(void);

/* "handoff": blocks in read() of the pipe (revalidator2).  Global and not
 * inlined, so that it has a symbol in the blocked stack. */
long kd_workload_handoff_wait(void);

__attribute__((noinline)) long
kd_workload_handoff_wait(void)
{
    char c;

    return raw_syscall3(SYS_read, handoff_pipe[0], (long) &c, 1);
}

/* "handoff": writes the pipe (handler1), the waker's frame. */
long kd_workload_handoff_send(void);

__attribute__((noinline)) long
kd_workload_handoff_send(void)
{
    char c = 'h';

    return raw_syscall3(SYS_write, handoff_pipe[1], (long) &c, 1);
}

static int
job_handoff_wait(void)
{
    uint64_t start, t0, t1, c0, c1;
    long n;
    int error = set_policy(0, SCHED_FIFO);

    if (error) {
        atomic_store(&handoff_reading, true);
        return error;
    }
    wl_poll(0);
    start = now_ns();
    atomic_store(&handoff_reading, true);
    c0 = thread_cpu_ns();
    t0 = now_ns();
    n = kd_workload_handoff_wait();
    t1 = now_ns();
    c1 = thread_cpu_ns();
    wl_poll(0);
    handoff_stats.gap_ns = now_ns() - start;
    handoff_stats.read_ns = t1 - t0;
    handoff_stats.read_cpu_ns = c1 - c0;
    error = set_policy(0, SCHED_OTHER);
    return n != 1 ? (n < 0 ? (int) -n : EIO) : error;
}

static int
job_handoff_send(long ms)
{
    struct timespec ts = { .tv_sec = ms / 1000,
                           .tv_nsec = (ms % 1000) * NSEC_PER_MSEC };
    long n;

    while (!atomic_load(&handoff_reading)) {
        sched_yield();
    }
    nanosleep(&ts, NULL);
    n = kd_workload_handoff_send();
    return n != 1 ? (n < 0 ? (int) -n : EIO) : 0;
}

/* "deep": chains of calls five deep, through libc.  Global and never
 * inlined, so that each has a symbol and a frame; each does some work
 * after its call, so that the call is not a jump (a sibling call would
 * leave no frame). */
static struct {
    uint64_t gap_ns;
    uint64_t spin_ns;
    uint64_t read_ns;
} deep_stats;
static volatile uint64_t deep_sink;

uint64_t kd_deep_leaf(uint64_t until);
uint64_t kd_deep_d(uint64_t until);
uint64_t kd_deep_c(uint64_t until);
uint64_t kd_deep_b(uint64_t until);
uint64_t kd_deep_a(uint64_t until);
long kd_read_e(void);
long kd_read_d(void);
long kd_read_c(void);
long kd_read_b(void);
long kd_read_a(void);
long kd_write_b(void);
long kd_write_a(void);

/* Spins until 'until' (now_ns()) with no call, no syscall: every sample of
 * the spin is in this function. */
__attribute__((noinline)) uint64_t
kd_deep_leaf(uint64_t until)
{
    uint64_t n = 0;
    struct timespec ts;

    do {
        for (int i = 0; i < 100000; i++) {
            deep_sink = deep_sink * 31 + i;
        }
        n++;
        /* The vDSO: no syscall. */
        clock_gettime(CLOCK_MONOTONIC, &ts);
    } while ((uint64_t) ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec < until);
    return n;
}

#define KD_DEEP_CALLER(NAME, CALLEE)                        \
    __attribute__((noinline)) uint64_t                      \
    NAME(uint64_t until)                                    \
    {                                                       \
        uint64_t n = CALLEE(until);                         \
                                                            \
        deep_sink += n;                                     \
        return n + 1;                                       \
    }
KD_DEEP_CALLER(kd_deep_d, kd_deep_leaf)
KD_DEEP_CALLER(kd_deep_c, kd_deep_d)
KD_DEEP_CALLER(kd_deep_b, kd_deep_c)
KD_DEEP_CALLER(kd_deep_a, kd_deep_b)

/* Blocks in libc's read() of the handoff pipe. */
__attribute__((noinline)) long
kd_read_e(void)
{
    char c;
    long n = read(handoff_pipe[0], &c, 1);

    deep_sink += c;
    return n;
}

#define KD_CHAIN_CALLER(NAME, CALLEE)                       \
    __attribute__((noinline)) long                          \
    NAME(void)                                              \
    {                                                       \
        long n = CALLEE();                                  \
                                                            \
        deep_sink += n;                                     \
        return n;                                           \
    }
KD_CHAIN_CALLER(kd_read_d, kd_read_e)
KD_CHAIN_CALLER(kd_read_c, kd_read_d)
KD_CHAIN_CALLER(kd_read_b, kd_read_c)
KD_CHAIN_CALLER(kd_read_a, kd_read_b)

/* Writes the handoff pipe with libc's write(). */
__attribute__((noinline)) long
kd_write_b(void)
{
    char c = 'd';
    long n = write(handoff_pipe[1], &c, 1);

    deep_sink += n;
    return n;
}
KD_CHAIN_CALLER(kd_write_a, kd_write_b)

static int
job_deep_wait(long spin_ms)
{
    uint64_t start, t0, t1;
    long n;

    wl_poll(0);
    start = now_ns();
    kd_deep_a(start + spin_ms * NSEC_PER_MSEC);
    t0 = now_ns();
    atomic_store(&handoff_reading, true);
    n = kd_read_a();
    t1 = now_ns();
    wl_poll(0);
    deep_stats.gap_ns = now_ns() - start;
    deep_stats.spin_ns = t0 - start;
    deep_stats.read_ns = t1 - t0;
    return n != 1 ? (n < 0 ? errno : EIO) : 0;
}

static int
job_deep_send(long ms)
{
    struct timespec ts = { .tv_sec = ms / 1000,
                           .tv_nsec = (ms % 1000) * NSEC_PER_MSEC };
    long n;

    while (!atomic_load(&handoff_reading)) {
        sched_yield();
    }
    nanosleep(&ts, NULL);
    n = kd_write_a();
    return n != 1 ? (n < 0 ? errno : EIO) : 0;
}

/* "recurse N SPIN": a frame for each of 'n' calls, then the spin. */
uint64_t kd_recurse(long n, uint64_t until);

__attribute__((noinline)) uint64_t
kd_recurse(long n, uint64_t until)
{
    uint64_t r = n > 0 ? kd_recurse(n - 1, until) : kd_deep_leaf(until);

    deep_sink += r;
    return r + 1;
}

static int
job_recurse(long n, long spin_ms)
{
    wl_poll(0);
    kd_recurse(n, now_ns() + spin_ms * NSEC_PER_MSEC);
    wl_poll(0);
    return 0;
}

/* "dlspin PATH SPIN": the library, and the second spin's length. */
static char dlspin_path[4096];
static uint64_t dlspin_ns;

static int
job_dlspin(long spin_ms)
{
    static void *lib;
    uint64_t (*spin)(uint64_t);
    uint64_t start;

    wl_poll(0);
    if (!lib) {
        lib = dlopen(dlspin_path, RTLD_NOW);
    }
    spin = lib ? (uint64_t (*)(uint64_t)) dlsym(lib, "kd_lib_a") : NULL;
    if (!spin) {
        wl_poll(0);
        return ENOENT;
    }
    spin(now_ns() + 20 * NSEC_PER_MSEC);
    wl_poll(500);
    start = now_ns();
    spin(start + spin_ms * NSEC_PER_MSEC);
    dlspin_ns = now_ns() - start;
    wl_poll(0);
    return 0;
}

/* "events N M P": N getppid(), M slow syscalls, P 5 ms poll(). */
static int
job_events(long n, long m, long p)
{
    long i;

    for (i = 0; i < n; i++) {
        syscall(SYS_getppid);
    }
    for (i = 0; i < m; i++) {
        kd_workload_slow_syscall();
    }
    for (i = 0; i < p; i++) {
        wl_poll(5);
    }
    return 0;
}

/* "spin MS": getppid() as fast as possible for MS ms; the number of calls
 * is kept in job_stats.total_ns (a count, not ns). */
static int
job_getppid_spin(long ms)
{
    uint64_t end = now_ns() + ms * NSEC_PER_MSEC;
    uint64_t count = 0;

    job_stats_reset();
    while (now_ns() < end) {
        for (int i = 0; i < 100; i++) {
            syscall(SYS_getppid);
        }
        count += 100;
    }
    job_stats.total_ns = count;
    return 0;
}

/* "bracketed N": sched_yield(), exactly N getppid(), then getpgid(0); the
 * first and the last are the brackets a tracepoint trigger can use. */
static int
job_bracketed(long n)
{
    long i;

    syscall(SYS_sched_yield);
    for (i = 0; i < n; i++) {
        syscall(SYS_getppid);
    }
    syscall(SYS_getpgid, 0);
    return 0;
}

/* "poll K MS": K + 1 poll(NULL, 0, 0) calls, with a busy spin of at least
 * MS ms between the return of one and the entry of the next, so K "long
 * poll" intervals.  Each interval is timed from user space twice: from just
 * after a poll() returns to just before the next one is called (job_stats),
 * and from just before the first is called to just after the second
 * returns (job_outer_stats).  The kernel's view (syscall exit to syscall
 * entry) lies between the two, whatever the syscall paths cost (the
 * emulated kernels of the lane take milliseconds there). */
static int
job_poll(long k, long ms)
{
    uint64_t before = now_ns(), after;
    long i;

    job_stats_reset();
    wl_poll(0);
    after = now_ns();
    for (i = 0; i < k; i++) {
        uint64_t start = after, end, next;

        do {
            end = now_ns();
        } while (end - start < ms * NSEC_PER_MSEC);
        next = now_ns();
        wl_poll(0);
        after = now_ns();
        job_stats_add(end - start);
        interval_stats_add(&job_outer_stats, after - before);
        before = next;
    }
    return 0;
}

/* Sets the scheduling policy of thread 'tid' (0: the calling thread) to
 * 'policy' (SCHED_OTHER, or a real-time one at priority 1, the lowest).
 * One sched_setscheduler() syscall.  Returns 0 or an errno value. */
static int
set_policy(pid_t tid, int policy)
{
    struct sched_param param = {
        .sched_priority = policy == SCHED_OTHER ? 0 : 1,
    };

    return syscall(SYS_sched_setscheduler, tid, policy, &param) ? errno : 0;
}

/* "contend" (urcu3) and "irqspin" (irq6): pin, then spin for 'ms' of wall
 * time; with 'stop_pmd' (contend), then let pmd4 stop.  Syscalls: one
 * sched_setaffinity(). */
static int
job_spin(long ms, int cpu, bool stop_pmd)
{
    int error = pin_self(cpu);

    if (!error) {
        spin_ns(ms * NSEC_PER_MSEC);
    }
    if (stop_pmd) {
        atomic_store(&pmd_stop, true);
    }
    return error;
}

/* "contend" and "longpoll" (pmd4): pin, then spin until 'pmd_stop' or,
 * asked to be the real-time hog ('pmd_fifo'), under SCHED_FIFO until
 * 'pmd_stop_at', so that no ordinary task can take its CPU, whatever else
 * runs on the machine.  It reports the hog in 'pmd_fifo_state'.  Syscalls:
 * one sched_setaffinity(), and two sched_setscheduler() for the hog. */
static int
job_spin_until_stop(int cpu)
{
    int error = pin_self(cpu);

    if (error) {
        return error;
    }
    atomic_store(&pmd_spinning, true);
    while (!atomic_load(&pmd_stop) && !atomic_load(&pmd_fifo)) {
        continue;
    }
    if (atomic_load(&pmd_stop)) {
        return 0;
    }
    error = set_policy(0, SCHED_FIFO);
    atomic_store(&pmd_fifo_state, error ? -error : 1);
    if (error) {
        return error;
    }
    while (!atomic_load(&pmd_stop) && now_ns() < atomic_load(&pmd_stop_at)) {
        continue;
    }
    return set_policy(0, SCHED_OTHER);
}

/* Has pmd4 become the real-time hog of its CPU until 'stop_at', and waits
 * until it has.  Returns 0 or the errno value of its failure. */
static int
pmd_hog_until(uint64_t stop_at)
{
    int state;

    atomic_store(&pmd_stop_at, stop_at);
    atomic_store(&pmd_fifo, true);
    while (!(state = atomic_load(&pmd_fifo_state))) {
        continue;
    }
    return state < 0 ? -state : 0;
}

/* "udp N" (handler5): N times, one sendto() of a one byte datagram to our
 * own loopback socket, then one blocking recvfrom() that gets it back.
 * Exactly N sendto() and N recvfrom(), however the softirq is scheduled.
 * Loopback transmission runs the NET_RX softirq in the sender's context. */
static int
job_udp(long n)
{
    char byte = 'x';
    long i;

    for (i = 0; i < n; i++) {
        if (sendto(udp_tx_fd, &byte, 1, 0, (struct sockaddr *) &udp_rx_addr,
                   sizeof udp_rx_addr) != 1) {
            return errno;
        }
        if (recvfrom(udp_rx_fd, &byte, 1, 0, NULL, NULL) != 1) {
            return errno;
        }
    }
    return 0;
}

/* "irqspin" (io7): pin to 'cpu', then O_DIRECT 4 KiB pwrite() + fdatasync()
 * in a loop for 'ms' of wall time, to make the block device interrupt. */
static int
job_direct_io(long ms, int cpu)
{
    uint64_t deadline;
    int error = pin_self(cpu);
    long i;
    int fd;

    if (error) {
        return error;
    }
    fd = open(io_path, O_WRONLY | O_CREAT | O_DIRECT, 0600);
    if (fd < 0) {
        return errno;
    }
    deadline = now_ns() + ms * NSEC_PER_MSEC;
    for (i = 0; now_ns() < deadline; i++) {
        off_t offset = (off_t) (i % IO_FILE_BLOCKS) * IO_BLOCK_SIZE;

        if (pwrite(fd, io_buf, sizeof io_buf, offset) != sizeof io_buf
            || fdatasync(fd)) {
            error = errno ? errno : EIO;
            break;
        }
    }
    close(fd);
    unlink(io_path);
    return error;
}

/* Opens file 'leaf' of the calling thread's /proc directory, read-only.
 * Returns the file descriptor, or -1 with errno set. */
static int
open_self_task(const char *leaf)
{
    char path[64];

    snprintf(path, sizeof path, "/proc/self/task/%ld/%s",
             (long) syscall(SYS_gettid), leaf);
    return open(path, O_RDONLY);
}

/* Reads the schedstat open at 'fd' with one pread(): run ns (as of the
 * last scheduler update, up to a tick old for a running thread), run-queue
 * wait ns (only updated when the thread gets a CPU: up to date for a
 * running thread), timeslices.  Returns false on failure. */
static bool
pread_schedstat(int fd, uint64_t v[3])
{
    char buf[128];
    ssize_t n;

    n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0) {
        return false;
    }
    buf[n] = '\0';
    return sscanf(buf, "%" SCNu64 " %" SCNu64 " %" SCNu64, &v[0], &v[1],
                  &v[2]) == 3;
}

/* Reads the calling thread's schedstat, open at 'fd' (see
 * pread_schedstat()), with its run time brought up to date by its
 * CPU-time clock.  Returns false on failure. */
static bool
read_schedstat(int fd, uint64_t v[3])
{
    struct timespec cpu;

    if (!pread_schedstat(fd, v)
        || clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu)) {
        return false;
    }
    v[0] = (uint64_t) cpu.tv_sec * NSEC_PER_SEC + cpu.tv_nsec;
    return true;
}

/* Reads into '*n' the calling thread's involuntary context switches (its
 * preemptions) from its /proc status, open at 'fd', with one pread().
 * Returns false on failure. */
static bool
pread_preemptions(int fd, uint64_t *n)
{
    static const char key[] = "\nnonvoluntary_ctxt_switches:";
    char buf[4096];
    const char *p;
    ssize_t len;

    len = pread(fd, buf, sizeof buf - 1, 0);
    if (len <= 0) {
        return false;
    }
    buf[len] = '\0';
    p = strstr(buf, key);
    return p && sscanf(p + strlen(key), "%" SCNu64, n) == 1;
}

/* What "usersys" measured (see the top of the file). */
static struct {
    uint64_t gap_ns, user_ns, kernel_ns, ru_user_ns, ru_sys_ns, preempted;
    uint64_t reads, cpu_ns;
} usersys_stats;

/* The calling thread's CPU-time clock, in ns: a clock_gettime() syscall
 * (the vDSO serves no CPU-time clock). */
static uint64_t
thread_cpu_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t) ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* The calling thread's user and system time, in ns, and its involuntary
 * context switches: one getrusage(). */
static void
thread_rusage_ns(uint64_t *user, uint64_t *sys, uint64_t *nivcsw)
{
    struct rusage ru;

    getrusage(RUSAGE_THREAD, &ru);
    *nivcsw = ru.ru_nivcsw;
    *user = (uint64_t) ru.ru_utime.tv_sec * NSEC_PER_SEC
            + ru.ru_utime.tv_usec * 1000;
    *sys = (uint64_t) ru.ru_stime.tv_sec * NSEC_PER_SEC
           + ru.ru_stime.tv_usec * 1000;
}

/* "usersys": spins in user space for 'ns' of wall time, without any
 * syscall (now_ns() is the vDSO's).  Its own frame, as a profiler is to
 * see it. */
static void __attribute__((noinline))
usersys_user(uint64_t ns)
{
    spin_ns(ns);
}

/* "usersys": read()s 16 MiB from /dev/zero ('fd') into 'buf', which is
 * already mapped, for 'ns' of wall time.  Returns false if one fails. */
static bool __attribute__((noinline))
usersys_kernel(int fd, char *buf, size_t size, uint64_t ns)
{
    uint64_t start = now_ns();

    do {
        if (read(fd, buf, size) != (ssize_t) size) {
            return false;
        }
        usersys_stats.reads++;
    } while (now_ns() - start < ns);
    return true;
}

/* What "stuck" measured. */
static uint64_t stuck_gap_ns;

/* "stuck MS" (revalidator2): see the top of the file. */
static int
job_stuck(long ms)
{
    struct timespec ts = { .tv_sec = ms / 1000,
                           .tv_nsec = (ms % 1000) * NSEC_PER_MSEC };
    uint64_t start;

    wl_poll(0);
    start = now_ns();
    if (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL)) {
        return EINTR;
    }
    stuck_gap_ns = now_ns() - start;
    wl_poll(0);
    return 0;
}

/* "usersys USER KERNEL" (revalidator2): see the top of the file. */
static int
job_usersys(long user_ms, long kernel_ms)
{
    size_t size = 16 << 20;     /* Few syscalls: see the man page. */
    uint64_t u0, s0, n0, u1, s1, n1, c0, c1, c2, cs, ce, start;
    bool ok;
    char *buf = malloc(size);
    int fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
    int error = 0;

    memset(&usersys_stats, 0, sizeof usersys_stats);
    if (!buf || fd < 0) {
        error = buf ? errno : ENOMEM;
        goto out;
    }
    memset(buf, 1, size);       /* No page fault in the interval. */
    error = set_policy(0, SCHED_FIFO);
    if (error) {
        goto out;
    }
    wl_poll(0);
    cs = thread_cpu_ns();
    start = now_ns();
    thread_rusage_ns(&u0, &s0, &n0);
    c0 = thread_cpu_ns();
    usersys_user(user_ms * NSEC_PER_MSEC);
    c1 = thread_cpu_ns();
    ok = usersys_kernel(fd, buf, size, kernel_ms * NSEC_PER_MSEC);
    c2 = thread_cpu_ns();
    thread_rusage_ns(&u1, &s1, &n1);
    usersys_stats.gap_ns = now_ns() - start;
    ce = thread_cpu_ns();
    wl_poll(0);
    error = set_policy(0, SCHED_OTHER);
    if (!ok) {
        error = EIO;
    }
    usersys_stats.user_ns = c1 - c0;
    usersys_stats.kernel_ns = c2 - c1;
    usersys_stats.ru_user_ns = u1 - u0;
    usersys_stats.ru_sys_ns = s1 - s0;
    usersys_stats.preempted = n1 - n0;
    usersys_stats.cpu_ns = ce - cs;
out:
    if (fd >= 0) {
        close(fd);
    }
    free(buf);
    return error;
}

/* "longpoll" (revalidator2): see the top of the file.  Between the two
 * poll() calls that bound the long interval, exactly one clock_nanosleep()
 * between four pread64() (of its status and schedstat), one
 * sched_setaffinity() and, with 'stop', one getpid(),
 * one gettid() and one tgkill(). */
static int
job_longpoll(long spin_ms, long sleep_ms, long contend_ms, int cpu,
             bool stop)
{
    struct timespec ts = { .tv_sec = sleep_ms / 1000,
                           .tv_nsec = (sleep_ms % 1000) * NSEC_PER_MSEC };
    uint64_t s0[3], s1[3], w0[3], w1[3], start, edge, t, p0, p1;
    uint64_t before, next;
    bool wait_ok;
    int error = 0;
    int fd, status_fd;

    memset(&longpoll_stats, 0, sizeof longpoll_stats);
    fd = open_self_task("schedstat");
    if (fd < 0) {
        atomic_store(&pmd_stop, true);
        return errno;
    }
    status_fd = open_self_task("status");
    if (status_fd < 0) {
        error = errno;
        atomic_store(&pmd_stop, true);
        close(fd);
        return error;
    }
    /* Each short interval, from a poll() return to the next call, is
     * timed from inside (the spin) and from outside (from before the
     * poll() that opens it to after the one that closes it returned). */
    before = now_ns();
    wl_poll(0);
    for (int i = 0; i < LONGPOLL_SHORT; i++) {
        t = now_ns();
        spin_ns(LONGPOLL_SHORT_NS);
        t = now_ns() - t;
        if (t > longpoll_stats.short_max_ns) {
            longpoll_stats.short_max_ns = t;
        }
        next = now_ns();
        wl_poll(0);
        t = now_ns() - before;
        if (t > longpoll_stats.short_outer_max_ns) {
            longpoll_stats.short_outer_max_ns = t;
        }
        before = next;
    }
    edge = now_ns();
    if (!read_schedstat(fd, s0)) {
        atomic_store(&pmd_stop, true);
        close(fd);
        close(status_fd);
        return EIO;
    }

    longpoll_stats.pre_ns = now_ns() - edge;
    wl_poll(0);
    start = now_ns();
    edge = start - edge;
    spin_ns(spin_ms * NSEC_PER_MSEC);
    /* The sleep can start late: preempted in clock_nanosleep() before it
     * sleeps, the thread waits in the run queue while the timer runs. */
    wait_ok = pread_preemptions(status_fd, &p0);
    wait_ok = pread_schedstat(fd, w0) && wait_ok;
    t = now_ns();
    syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &ts, NULL);
    longpoll_stats.sleep_ns = now_ns() - t;
    wait_ok = pread_schedstat(fd, w1) && wait_ok && w1[1] >= w0[1];
    wait_ok = pread_preemptions(status_fd, &p1) && wait_ok && p1 >= p0;
    longpoll_stats.sleep_wait_ns = wait_ok ? w1[1] - w0[1] : 0;
    longpoll_stats.sleep_run_ns = wait_ok && w1[0] >= w0[0]
                                  ? w1[0] - w0[0] : 0;
    longpoll_stats.sleep_preempted = wait_ok ? p1 - p0 : 0;
    /* pmd4 holds the CPU under SCHED_FIFO until the contention's end, so
     * that this thread, arriving there, waits behind it alone. */
    t = now_ns() + contend_ms * NSEC_PER_MSEC;
    error = pmd_hog_until(t);
    if (!error) {
        error = pin_self(cpu);
    }
    while (!error && now_ns() < t) {
        continue;
    }
    atomic_store(&pmd_stop, true);
    if (stop) {
        /* Thread-directed, so that this thread, not another one, takes the
         * signal, and stops as it returns from tgkill(). */
        t = now_ns();
        syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), SIGSTOP);
        longpoll_stats.stop_ns = now_ns() - t;
    }
    t = now_ns();
    longpoll_stats.gap_ns = t - start;
    wl_poll(0);

    if (!read_schedstat(fd, s1) || !wait_ok) {
        close(fd);
        close(status_fd);
        return error ? error : EIO;
    }
    longpoll_stats.edges_ns = edge + now_ns() - t;
    close(fd);
    close(status_fd);
    longpoll_stats.run_ns = s1[0] - s0[0];
    longpoll_stats.wait_ns = s1[1] - s0[1];
    longpoll_stats.slices = s1[2] - s0[2];
    return error;
}

static int
run_job(const struct job *job)
{
    switch (job->type) {
    case JOB_SYSCALLS:
        return job_syscalls(job->arg[0], job->arg[1]);
    case JOB_TRACED:
        return job_traced(job->arg[0], job->arg[1]);
    case JOB_BRACKETED:
        return job_bracketed(job->arg[0]);
    case JOB_EVENTS:
        return job_events(job->arg[0], job->arg[1], job->arg[2]);
    case JOB_GETPPID_SPIN:
        return job_getppid_spin(job->arg[0]);
    case JOB_TRACED_REPEAT:
        for (long i = 0; i < job->arg[0]; i++) {
            struct timespec ts = { .tv_sec = job->arg[1] / 1000,
                                   .tv_nsec = (job->arg[1] % 1000)
                                              * NSEC_PER_MSEC };

            kd_workload_traced_job(10, 0);
            nanosleep(&ts, NULL);
        }
        return 0;
    case JOB_POLL:
        return job_poll(job->arg[0], job->arg[1]);
    case JOB_SPIN:
        return job_spin(job->arg[0], job->arg[1], job->arg[2]);
    case JOB_SPIN_UNTIL_STOP:
        return job_spin_until_stop(job->arg[1]);
    case JOB_UDP:
        return job_udp(job->arg[0]);
    case JOB_DIRECT_IO:
        return job_direct_io(job->arg[0], job->arg[1]);
    case JOB_RENAME:
        return prctl(PR_SET_NAME, rename_to) ? errno : 0;
    case JOB_LONGPOLL:
        return job_longpoll(job->arg[0], job->arg[1], job->arg[2],
                            job->arg[3], job->arg[4]);
    case JOB_STUCK:
        return job_stuck(job->arg[0]);
    case JOB_USERSYS:
        return job_usersys(job->arg[0], job->arg[1]);
    case JOB_HANDOFF_WAIT:
        return job_handoff_wait();
    case JOB_HANDOFF_SEND:
        return job_handoff_send(job->arg[0]);
    case JOB_DEEP_WAIT:
        return job_deep_wait(job->arg[0]);
    case JOB_DEEP_SEND:
        return job_deep_send(job->arg[0]);
    case JOB_DLSPIN:
        return job_dlspin(job->arg[0]);
    case JOB_RECURSE:
        return job_recurse(job->arg[0], job->arg[1]);
    }
    return EINVAL;
}

/* The one write() by which a worker reports a finished job (or its start). */
static void
send_done(enum worker_id id, int error)
{
    struct done_msg msg = { .worker = id, .error = error };

    if (write(done_fd[1], &msg, sizeof msg) != sizeof msg) {
        fatal("%s: write: %s", workers[id].name, strerror(errno));
    }
}

/* Creates handler5's sockets: a receiver bound to 127.0.0.1 on an ephemeral
 * port, and an unbound sender.  Done before any job, so that jobs make
 * exactly the syscalls documented above. */
static void
udp_setup(void)
{
    socklen_t len = sizeof udp_rx_addr;

    udp_rx_fd = socket(AF_INET, SOCK_DGRAM, 0);
    udp_tx_fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (udp_rx_fd < 0 || udp_tx_fd < 0) {
        fatal("socket: %s", strerror(errno));
    }
    memset(&udp_rx_addr, 0, sizeof udp_rx_addr);
    udp_rx_addr.sin_family = AF_INET;
    udp_rx_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(udp_rx_fd, (struct sockaddr *) &udp_rx_addr, len)
        || getsockname(udp_rx_fd, (struct sockaddr *) &udp_rx_addr, &len)) {
        fatal("bind/getsockname: %s", strerror(errno));
    }
}

static void *
worker_main(void *arg)
{
    enum worker_id id = (enum worker_id) (intptr_t) arg;
    struct worker *w = &workers[id];

    prctl(PR_SET_NAME, w->name);
    w->tid = syscall(SYS_gettid);
    if (id == W_HANDLER5) {
        udp_setup();
    }
    send_done(id, 0);

    for (;;) {
        struct job job;
        ssize_t n;

        /* Idle: blocked here until the main thread dispatches a job. */
        n = read(w->job_fd[0], &job, sizeof job);
        if (n < 0 && errno == EINTR) {
            continue;
        } else if (n != sizeof job) {
            fatal("%s: read: %s", w->name, n < 0 ? strerror(errno) : "short");
        }
        send_done(id, run_job(&job));
    }
    return NULL;
}

/* "spawn-many": a short-lived thread that makes three getppid(). */
static void *
brief_main(void *arg)
{
    (void) arg;
    syscall(SYS_getppid);
    syscall(SYS_getppid);
    syscall(SYS_getppid);
    return NULL;
}

static void
cmd_spawn_many(long n, char *reply, size_t size)
{
    for (long i = 0; i < n; i++) {
        pthread_t thread;
        int error = pthread_create(&thread, NULL, brief_main, NULL);

        if (error) {
            snprintf(reply, size, "error pthread_create: %s",
                     strerror(error));
            return;
        }
        pthread_join(thread, NULL);
    }
}

/* "spawn-exit": a short-lived thread that names itself, makes exactly three
 * getppid() and exits. */
static void *
exiter_main(void *arg)
{
    (void) arg;
    atomic_store(&exiter_tid, (int) syscall(SYS_gettid));
    prctl(PR_SET_NAME, exiter_name);
    syscall(SYS_getppid);
    syscall(SYS_getppid);
    syscall(SYS_getppid);
    return NULL;
}

/*
 * Main thread side.
 */

/* Reads a small /proc file into 'buf'.  Returns false on failure. */
static bool
read_proc_file(const char *path, char *buf, size_t size)
{
    ssize_t n;
    int fd;

    fd = open(path, O_RDONLY);
    if (fd < 0) {
        return false;
    }
    n = read(fd, buf, size - 1);
    close(fd);
    if (n < 0) {
        return false;
    }
    buf[n] = '\0';
    return true;
}

/* Returns true if thread 'tid' of this process sleeps in read(). */
static bool
blocked_in_read(pid_t tid)
{
    char path[64], buf[512], *paren;

    snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int) tid);
    if (!read_proc_file(path, buf, sizeof buf)) {
        return false;
    }
    paren = strrchr(buf, ')');
    if (!paren || strncmp(paren, ") S ", 4)) {
        return false;
    }

    /* "NR ARG..." when blocked in syscall NR, "running" otherwise. */
    snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int) tid);
    if (!read_proc_file(path, buf, sizeof buf)) {
        return false;
    }
    return strtol(buf, NULL, 10) == SYS_read && buf[0] >= '0'
           && buf[0] <= '9';
}

/* Waits until worker 'id' is blocked in read() on its job pipe. */
static bool
wait_blocked(enum worker_id id)
{
    uint64_t deadline = now_ns() + BLOCK_WAIT_NS;

    while (!blocked_in_read(workers[id].tid)) {
        if (now_ns() > deadline) {
            return false;
        }
        sleep_ns(100 * 1000);
    }
    return true;
}

static void
dispatch5(enum worker_id id, enum job_type type, const long args[5])
{
    struct job job = { .type = type };

    memcpy(job.arg, args, sizeof job.arg);
    if (write(workers[id].job_fd[1], &job, sizeof job) != sizeof job) {
        fatal("write job to %s: %s", workers[id].name, strerror(errno));
    }
}

static void
dispatch3(enum worker_id id, enum job_type type, long arg0, long arg1,
          long arg2)
{
    struct job job = { .type = type, .arg = { arg0, arg1, arg2 } };

    if (write(workers[id].job_fd[1], &job, sizeof job) != sizeof job) {
        fatal("write job to %s: %s", workers[id].name, strerror(errno));
    }
}

static void
dispatch(enum worker_id id, enum job_type type, long arg0, long arg1)
{
    dispatch3(id, type, arg0, arg1, 0);
}

/* Reads one completion message; 'timeout_ms' < 0 blocks.  Returns false on
 * time-out. */
static bool
read_done(struct done_msg *msg, int timeout_ms)
{
    struct pollfd pfd = { .fd = done_fd[0], .events = POLLIN };
    ssize_t n;

    if (timeout_ms >= 0 && poll(&pfd, 1, timeout_ms) == 0) {
        return false;
    }
    do {
        n = read(done_fd[0], msg, sizeof *msg);
    } while (n < 0 && errno == EINTR);
    if (n != sizeof *msg || msg->worker < 0 || msg->worker >= N_WORKERS) {
        fatal("bad completion message");
    }
    return true;
}

/* Formats an error reply for worker 'id' failing with 'error'. */
static void
worker_error(char *reply, size_t size, enum worker_id id, int error)
{
    snprintf(reply, size, "error %s: %s", workers[id].name, strerror(error));
}

/* Waits for the completion of workers 'a' and 'b' (b may be N_WORKERS for
 * none), in any order, and then until they are blocked in read() again.
 * Returns false, with an error reply, if either failed. */
static bool
collect(enum worker_id a, enum worker_id b, char *reply, size_t size)
{
    int pending = 1 + (b != N_WORKERS);
    bool ok = true;

    while (pending > 0) {
        struct done_msg msg;

        read_done(&msg, -1);
        if (msg.worker != (int) a && msg.worker != (int) b) {
            fatal("unexpected completion from %s", workers[msg.worker].name);
        }
        if (msg.error && ok) {
            worker_error(reply, size, msg.worker, msg.error);
            ok = false;
        }
        pending--;
    }
    if (!wait_blocked(a) || (b != N_WORKERS && !wait_blocked(b))) {
        snprintf(reply, size, "error worker did not block again");
        return false;
    }
    return ok;
}

/* Returns true if this process may run on 'cpu'. */
static bool
cpu_allowed(long cpu)
{
    cpu_set_t set;

    if (cpu < 0 || cpu >= CPU_SETSIZE
        || sched_getaffinity(0, sizeof set, &set)) {
        return false;
    }
    return CPU_ISSET(cpu, &set);
}

/* Returns the lowest CPU this process may run on other than 'cpu', or -1. */
static int
other_cpu(long cpu)
{
    cpu_set_t set;
    int i;

    if (sched_getaffinity(0, sizeof set, &set)) {
        return -1;
    }
    for (i = 0; i < CPU_SETSIZE; i++) {
        if (i != cpu && CPU_ISSET(i, &set)) {
            return i;
        }
    }
    return -1;
}

/* Readies the hand-shake with pmd4 for a new job. */
static void
pmd_reset(void)
{
    atomic_store(&pmd_spinning, false);
    atomic_store(&pmd_stop, false);
    atomic_store(&pmd_fifo, false);
    atomic_store(&pmd_fifo_state, 0);
    atomic_store(&pmd_stop_at, 0);
}

/* Keeps the calling thread (the main one) off 'cpu' while a job holds it
 * under a real-time policy, so that it cannot be stuck there behind it;
 * with 'cpu' -1, lets it run anywhere again.  Returns 0 or an errno
 * value. */
static int
main_avoid(long cpu)
{
    static cpu_set_t saved;
    cpu_set_t set;

    if (cpu < 0) {
        return sched_setaffinity(0, sizeof saved, &saved) ? errno : 0;
    }
    if (sched_getaffinity(0, sizeof saved, &saved)) {
        return errno;
    }
    set = saved;
    CPU_CLR(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set) ? errno : 0;
}

/* "contend MS CPU": see the top of the file. */
static void
cmd_contend(long ms, long cpu, char *reply, size_t size)
{
    struct done_msg msg;
    int error;

    pmd_reset();
    error = main_avoid(cpu);
    if (!error) {
        error = set_policy(workers[W_PMD4].tid, SCHED_RR);
    }
    if (!error) {
        error = set_policy(workers[W_URCU3].tid, SCHED_RR);
    }
    if (error) {
        snprintf(reply, size, "error SCHED_RR: %s", strerror(error));
        goto out;
    }
    dispatch(W_PMD4, JOB_SPIN_UNTIL_STOP, 0, cpu);

    /* Let pmd4 occupy the CPU before urcu3 arrives. */
    while (!atomic_load(&pmd_spinning)) {
        if (read_done(&msg, 1)) {
            /* pmd4 only completes before spinning if it failed. */
            worker_error(reply, size, msg.worker, msg.error);
            wait_blocked(W_PMD4);
            goto out;
        }
    }

    dispatch3(W_URCU3, JOB_SPIN, ms, cpu, true);
    read_done(&msg, -1);
    if (msg.worker != W_URCU3) {
        fatal("unexpected completion from %s", workers[msg.worker].name);
    }
    atomic_store(&pmd_stop, true);
    if (!collect(W_PMD4, N_WORKERS, reply, size)) {
        goto out;
    }
    if (msg.error) {
        worker_error(reply, size, W_URCU3, msg.error);
    } else if (!wait_blocked(W_URCU3)) {
        snprintf(reply, size, "error urcu3 did not block again");
    }
out:
    /* Blocked again, they are ordinary threads again. */
    error = set_policy(workers[W_PMD4].tid, SCHED_OTHER);
    error = set_policy(workers[W_URCU3].tid, SCHED_OTHER) || error;
    if ((main_avoid(-1) || error) && !strncmp(reply, "done", 4)) {
        snprintf(reply, size, "error SCHED_OTHER or affinity back");
    }
}

/* "longpoll[-stop] SPIN SLEEP CONTEND CPU": see the top of the file. */
static void
cmd_longpoll(const long args[5], char *reply, size_t size)
{
    struct done_msg msg;
    int error;

    pmd_reset();
    error = main_avoid(args[3]);
    if (error) {
        snprintf(reply, size, "error main thread affinity: %s",
                 strerror(error));
        return;
    }
    dispatch(W_PMD4, JOB_SPIN_UNTIL_STOP, 0, args[3]);
    while (!atomic_load(&pmd_spinning)) {
        if (read_done(&msg, 1)) {
            worker_error(reply, size, msg.worker, msg.error);
            wait_blocked(W_PMD4);
            goto out;
        }
    }

    /* revalidator2 lets pmd4 stop: either may complete first. */
    dispatch5(W_REVALIDATOR2, JOB_LONGPOLL, args);
    if (collect(W_REVALIDATOR2, W_PMD4, reply, size)) {
        snprintf(reply, size, "done gap_ns=%" PRIu64 " sleep_ns=%" PRIu64
                 " stop_ns=%" PRIu64 " run_ns=%" PRIu64 " wait_ns=%" PRIu64
                 " slices=%" PRIu64 " edges_ns=%" PRIu64
                 " short_max_ns=%" PRIu64 " pre_ns=%" PRIu64
                 " sleep_wait_ns=%" PRIu64 " sleep_run_ns=%" PRIu64
                 " sleep_preempted=%" PRIu64
                 " short_outer_max_ns=%" PRIu64,
                 longpoll_stats.gap_ns, longpoll_stats.sleep_ns,
                 longpoll_stats.stop_ns, longpoll_stats.run_ns,
                 longpoll_stats.wait_ns, longpoll_stats.slices,
                 longpoll_stats.edges_ns, longpoll_stats.short_max_ns,
                 longpoll_stats.pre_ns, longpoll_stats.sleep_wait_ns,
                 longpoll_stats.sleep_run_ns, longpoll_stats.sleep_preempted,
                 longpoll_stats.short_outer_max_ns);
    }
out:
    if (main_avoid(-1) && !strncmp(reply, "done", 4)) {
        snprintf(reply, size, "error main thread affinity back");
    }
}

/* "spawn-exit NAME": see the top of the file. */
static void
cmd_spawn_exit(const char *name, char *reply, size_t size)
{
    pthread_t thread;
    int error;

    snprintf(exiter_name, sizeof exiter_name, "%s", name);
    atomic_store(&exiter_tid, 0);
    error = pthread_create(&thread, NULL, exiter_main, NULL);
    if (error) {
        snprintf(reply, size, "error pthread_create: %s", strerror(error));
        return;
    }
    pthread_join(thread, NULL);
    snprintf(reply, size, "done %d", atomic_load(&exiter_tid));
}

/* The value of hexadecimal digit 'c', or -1. */
static int
hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
           : -1;
}

/* "rename WORKER HEX": see the top of the file. */
static void
cmd_rename(const char *worker, const char *hex, char *reply, size_t size)
{
    size_t len = strlen(hex);
    int id;

    for (id = 0; id < N_WORKERS; id++) {
        if (!strcmp(worker, workers[id].name)) {
            break;
        }
    }
    if (id == N_WORKERS || !len || len % 2 || len / 2 >= sizeof rename_to) {
        snprintf(reply, size, "error usage: rename WORKER HEX");
        return;
    }
    memset(rename_to, 0, sizeof rename_to);
    for (size_t i = 0; i < len / 2; i++) {
        int high = hex_digit(hex[2 * i]), low = hex_digit(hex[2 * i + 1]);

        if (high < 0 || low < 0 || (!high && !low)) {
            snprintf(reply, size, "error rename: bad byte '%.2s'",
                     hex + 2 * i);
            return;
        }
        rename_to[i] = (char) (high * 16 + low);
    }
    dispatch((enum worker_id) id, JOB_RENAME, 0, 0);
    collect((enum worker_id) id, N_WORKERS, reply, size);
}

/* Parses a decimal integer in [min, max]. */
static bool
parse_long(const char *s, long min, long max, long *value)
{
    char *end;

    if (!s) {
        return false;
    }
    errno = 0;
    *value = strtol(s, &end, 10);
    return !errno && end != s && !*end && *value >= min && *value <= max;
}

/* Executes one command line, and formats the reply into 'reply'.  Returns
 * false for "quit". */
static bool
execute(char *line, char *reply, size_t size)
{
    char *save = NULL;
    char *cmd = strtok_r(line, " \t\r\n", &save);
    char *arg1 = strtok_r(NULL, " \t\r\n", &save);
    char *arg2 = strtok_r(NULL, " \t\r\n", &save);
    char *arg3 = strtok_r(NULL, " \t\r\n", &save);
    char *arg4 = strtok_r(NULL, " \t\r\n", &save);
    bool extra = strtok_r(NULL, " \t\r\n", &save) != NULL;
    bool longpoll = cmd && (!strcmp(cmd, "longpoll")
                            || !strcmp(cmd, "longpoll-stop"));
    long a, b, c;

    snprintf(reply, size, "done");
    if (!cmd) {
        snprintf(reply, size, "error empty command");
    } else if (extra || (arg4 && !longpoll)) {
        snprintf(reply, size, "error too many arguments");
    } else if (longpoll) {
        long args[5] = { 0, 0, 0, 0, !strcmp(cmd, "longpoll-stop") };

        if (!parse_long(arg1, 0, MAX_MSEC, &args[0])
            || !parse_long(arg2, 0, MAX_MSEC, &args[1])
            || !parse_long(arg3, 0, MAX_MSEC, &args[2])
            || !parse_long(arg4, 0, CPU_SETSIZE - 1, &args[3])
            || !cpu_allowed(args[3])) {
            snprintf(reply, size, "error usage: %s SPIN SLEEP CONTEND CPU",
                     cmd);
            return true;
        }
        cmd_longpoll(args, reply, size);
    } else if (!strcmp(cmd, "ping")) {
        /* Nothing to do. */
    } else if (!strcmp(cmd, "quit")) {
        return false;
    } else if (!strcmp(cmd, "syscalls")) {
        if (!parse_long(arg1, 0, MAX_COUNT, &a)
            || !parse_long(arg2, 0, MAX_COUNT, &b)) {
            snprintf(reply, size, "error usage: syscalls N M");
            return true;
        }
        dispatch(W_HANDLER1, JOB_SYSCALLS, a, b);
        if (collect(W_HANDLER1, N_WORKERS, reply, size)) {
            snprintf(reply, size, "done sleep_total_ns=%"PRIu64
                     " sleep_max_ns=%"PRIu64, job_stats.total_ns,
                     job_stats.max_ns);
        }
    } else if (!strcmp(cmd, "stuck")) {
        if (!parse_long(arg1, 0, MAX_MSEC, &a) || arg2) {
            snprintf(reply, size, "error usage: stuck MS");
            return true;
        }
        dispatch(W_REVALIDATOR2, JOB_STUCK, a, 0);
        if (collect(W_REVALIDATOR2, N_WORKERS, reply, size)) {
            snprintf(reply, size, "done gap_ns=%" PRIu64, stuck_gap_ns);
        }
    } else if (!strcmp(cmd, "usersys")) {
        if (!parse_long(arg1, 0, MAX_MSEC, &a)
            || !parse_long(arg2, 0, MAX_MSEC, &b)) {
            snprintf(reply, size, "error usage: usersys USER KERNEL");
            return true;
        }
        dispatch(W_REVALIDATOR2, JOB_USERSYS, a, b);
        if (collect(W_REVALIDATOR2, N_WORKERS, reply, size)) {
            snprintf(reply, size, "done gap_ns=%" PRIu64 " user_ns=%" PRIu64
                     " kernel_ns=%" PRIu64 " ru_user_ns=%" PRIu64
                     " ru_sys_ns=%" PRIu64 " preempted=%" PRIu64
                     " reads=%" PRIu64 " cpu_ns=%" PRIu64,
                     usersys_stats.gap_ns, usersys_stats.user_ns,
                     usersys_stats.kernel_ns, usersys_stats.ru_user_ns,
                     usersys_stats.ru_sys_ns, usersys_stats.preempted,
                     usersys_stats.reads, usersys_stats.cpu_ns);
        }
    } else if (!strcmp(cmd, "handoff")) {
        if (!parse_long(arg1, 0, MAX_MSEC, &a) || arg2) {
            snprintf(reply, size, "error usage: handoff MS");
            return true;
        }
        if (handoff_pipe[0] < 0 && pipe2(handoff_pipe, O_CLOEXEC)) {
            snprintf(reply, size, "error pipe: %s", strerror(errno));
            return true;
        }
        atomic_store(&handoff_reading, false);
        memset(&handoff_stats, 0, sizeof handoff_stats);
        dispatch(W_REVALIDATOR2, JOB_HANDOFF_WAIT, 0, 0);
        dispatch(W_HANDLER1, JOB_HANDOFF_SEND, a, 0);
        if (collect(W_REVALIDATOR2, W_HANDLER1, reply, size)) {
            snprintf(reply, size, "done gap_ns=%" PRIu64 " read_ns=%" PRIu64
                     " read_cpu_ns=%" PRIu64 " waker_tid=%d",
                     handoff_stats.gap_ns, handoff_stats.read_ns,
                     handoff_stats.read_cpu_ns,
                     (int) workers[W_HANDLER1].tid);
        }
    } else if (!strcmp(cmd, "deep")) {
        if (!parse_long(arg1, 0, MAX_MSEC, &a)
            || !parse_long(arg2, 0, MAX_MSEC, &b) || arg3) {
            snprintf(reply, size, "error usage: deep SPIN MS");
            return true;
        }
        if (handoff_pipe[0] < 0 && pipe2(handoff_pipe, O_CLOEXEC)) {
            snprintf(reply, size, "error pipe: %s", strerror(errno));
            return true;
        }
        atomic_store(&handoff_reading, false);
        memset(&deep_stats, 0, sizeof deep_stats);
        dispatch(W_REVALIDATOR2, JOB_DEEP_WAIT, a, 0);
        dispatch(W_HANDLER1, JOB_DEEP_SEND, b, 0);
        if (collect(W_REVALIDATOR2, W_HANDLER1, reply, size)) {
            snprintf(reply, size, "done gap_ns=%" PRIu64 " spin_ns=%" PRIu64
                     " read_ns=%" PRIu64 " waker_tid=%d", deep_stats.gap_ns,
                     deep_stats.spin_ns, deep_stats.read_ns,
                     (int) workers[W_HANDLER1].tid);
        }
    } else if (!strcmp(cmd, "recurse")) {
        if (!parse_long(arg1, 0, 1000, &a)
            || !parse_long(arg2, 0, MAX_MSEC, &b) || arg3) {
            snprintf(reply, size, "error usage: recurse N SPIN");
            return true;
        }
        dispatch(W_REVALIDATOR2, JOB_RECURSE, a, b);
        collect(W_REVALIDATOR2, N_WORKERS, reply, size);
    } else if (!strcmp(cmd, "dlspin")) {
        if (!arg1 || strlen(arg1) >= sizeof dlspin_path
            || !parse_long(arg2, 0, MAX_MSEC, &a) || arg3) {
            snprintf(reply, size, "error usage: dlspin PATH SPIN");
            return true;
        }
        strcpy(dlspin_path, arg1);
        dispatch(W_REVALIDATOR2, JOB_DLSPIN, a, 0);
        if (collect(W_REVALIDATOR2, N_WORKERS, reply, size)) {
            snprintf(reply, size, "done spin_ns=%" PRIu64, dlspin_ns);
        }
    } else if (!strcmp(cmd, "traced")) {
        if (!parse_long(arg1, 0, MAX_COUNT, &a)
            || !parse_long(arg2, 0, MAX_MSEC, &b)) {
            snprintf(reply, size, "error usage: traced N MS");
            return true;
        }
        dispatch(W_HANDLER1, JOB_TRACED, a, b);
        if (collect(W_HANDLER1, N_WORKERS, reply, size)) {
            snprintf(reply, size, "done job_ns=%"PRIu64, job_stats.total_ns);
        }
    } else if (!strcmp(cmd, "events")) {
        if (!parse_long(arg1, 0, MAX_COUNT, &a)
            || !parse_long(arg2, 0, MAX_COUNT, &b)
            || !parse_long(arg3, 0, MAX_COUNT, &c)) {
            snprintf(reply, size, "error usage: events N M P");
            return true;
        }
        dispatch3(W_HANDLER1, JOB_EVENTS, a, b, c);
        collect(W_HANDLER1, N_WORKERS, reply, size);
    } else if (arg3) {
        snprintf(reply, size, "error too many arguments");
    } else if (!strcmp(cmd, "spin")) {
        if (!parse_long(arg1, 1, MAX_MSEC, &a) || arg2) {
            snprintf(reply, size, "error usage: spin MS");
            return true;
        }
        dispatch(W_HANDLER1, JOB_GETPPID_SPIN, a, 0);
        if (collect(W_HANDLER1, N_WORKERS, reply, size)) {
            snprintf(reply, size, "done count=%"PRIu64, job_stats.total_ns);
        }
    } else if (!strcmp(cmd, "bracketed")) {
        if (!parse_long(arg1, 0, MAX_COUNT, &a) || arg2) {
            snprintf(reply, size, "error usage: bracketed N");
            return true;
        }
        dispatch(W_HANDLER1, JOB_BRACKETED, a, 0);
        collect(W_HANDLER1, N_WORKERS, reply, size);
    } else if (!strcmp(cmd, "poll")) {
        if (!parse_long(arg1, 0, MAX_COUNT, &a)
            || !parse_long(arg2, 0, MAX_MSEC, &b)) {
            snprintf(reply, size, "error usage: poll K MS");
            return true;
        }
        dispatch(W_REVALIDATOR2, JOB_POLL, a, b);
        if (collect(W_REVALIDATOR2, N_WORKERS, reply, size) && a > 0) {
            snprintf(reply, size, "done gap_min_ns=%"PRIu64
                     " gap_max_ns=%"PRIu64" gap_avg_ns=%"PRIu64
                     " outer_min_ns=%"PRIu64" outer_max_ns=%"PRIu64
                     " outer_avg_ns=%"PRIu64,
                     job_stats.min_ns, job_stats.max_ns,
                     job_stats.total_ns / a, job_outer_stats.min_ns,
                     job_outer_stats.max_ns, job_outer_stats.total_ns / a);
        }
    } else if (!strcmp(cmd, "contend")) {
        if (!parse_long(arg1, 0, MAX_MSEC, &a)
            || !parse_long(arg2, 0, CPU_SETSIZE - 1, &b) || !cpu_allowed(b)) {
            snprintf(reply, size, "error usage: contend MS CPU");
            return true;
        }
        cmd_contend(a, b, reply, size);
    } else if (!strcmp(cmd, "udp")) {
        if (!parse_long(arg1, 0, MAX_COUNT, &a) || arg2) {
            snprintf(reply, size, "error usage: udp N");
            return true;
        }
        dispatch(W_HANDLER5, JOB_UDP, a, 0);
        collect(W_HANDLER5, N_WORKERS, reply, size);
    } else if (!strcmp(cmd, "irqspin")) {
        int other;

        if (!parse_long(arg1, 0, MAX_MSEC, &a)
            || !parse_long(arg2, 0, CPU_SETSIZE - 1, &b) || !cpu_allowed(b)) {
            snprintf(reply, size, "error usage: irqspin MS CPU");
            return true;
        }
        other = other_cpu(b);
        if (other < 0) {
            snprintf(reply, size, "error irqspin needs two CPUs");
            return true;
        }
        dispatch(W_IO7, JOB_DIRECT_IO, a, other);
        dispatch3(W_IRQ6, JOB_SPIN, a, b, false);
        collect(W_IRQ6, W_IO7, reply, size);
    } else if (!strcmp(cmd, "traced-repeat")) {
        if (!parse_long(arg1, 1, MAX_COUNT, &a)
            || !parse_long(arg2, 0, MAX_MSEC, &b)) {
            snprintf(reply, size, "error usage: traced-repeat N MS");
            return true;
        }
        dispatch(W_HANDLER1, JOB_TRACED_REPEAT, a, b);
        collect(W_HANDLER1, N_WORKERS, reply, size);
    } else if (!strcmp(cmd, "spawn-many")) {
        if (!parse_long(arg1, 1, 100000, &a) || arg2) {
            snprintf(reply, size, "error usage: spawn-many N");
            return true;
        }
        cmd_spawn_many(a, reply, size);
    } else if (!strcmp(cmd, "rename")) {
        if (!arg1 || !arg2) {
            snprintf(reply, size, "error usage: rename WORKER HEX");
            return true;
        }
        cmd_rename(arg1, arg2, reply, size);
    } else if (!strcmp(cmd, "spawn-exit")) {
        if (!arg1 || arg2) {
            snprintf(reply, size, "error usage: spawn-exit NAME");
            return true;
        }
        cmd_spawn_exit(arg1, reply, size);
    } else {
        snprintf(reply, size, "error unknown command '%s'", cmd);
    }
    return true;
}

static void usage(FILE *stream, int status) __attribute__((noreturn));

static void
usage(FILE *stream, int status)
{
    fprintf(stream,
            "usage: workload --ctl FIFO --reply PATH [--name NAME]\n"
            "                [--io-dir DIR] [--die-with-parent]\n"
            "Reads commands from FIFO, answers on PATH; see workload.c.\n");
    exit(status);
}

int
main(int argc, char *argv[])
{
    static const struct option long_options[] = {
        { "ctl", required_argument, NULL, 'c' },
        { "reply", required_argument, NULL, 'r' },
        { "name", required_argument, NULL, 'n' },
        { "io-dir", required_argument, NULL, 'i' },
        { "die-with-parent", no_argument, NULL, 'd' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *name = "kd-workload";
    const char *io_dir = "/var/tmp";
    const char *ctl_path = NULL;
    const char *reply_path = NULL;
    char *line = NULL;
    size_t line_size = 0;
    int ctl_fd, reply_fd;
    FILE *ctl;
    int opt;
    int i;

    while ((opt = getopt_long(argc, argv, "h", long_options, NULL)) != -1) {
        switch (opt) {
        case 'c':
            ctl_path = optarg;
            break;
        case 'r':
            reply_path = optarg;
            break;
        case 'n':
            name = optarg;
            break;
        case 'i':
            io_dir = optarg;
            break;
        case 'd':
            if (prctl(PR_SET_PDEATHSIG, SIGTERM) || getppid() == 1) {
                fatal("parent already gone");
            }
            break;
        case 'h':
            usage(stdout, EXIT_SUCCESS);
        default:
            usage(stderr, 2);
        }
    }
    if (optind != argc || !ctl_path || !reply_path) {
        usage(stderr, 2);
    }

    signal(SIGPIPE, SIG_IGN);
    prctl(PR_SET_NAME, name);
    snprintf(io_path, sizeof io_path, "%s/kd-workload.%ld.io", io_dir,
             (long) getpid());
    memset(io_buf, 'k', sizeof io_buf);

    /* O_RDWR: never blocks in open(), never sees EOF when a writer closes,
     * and never gets SIGPIPE/EPIPE when nobody reads the replies yet. */
    ctl_fd = open(ctl_path, O_RDWR);
    if (ctl_fd < 0) {
        fatal("%s: %s", ctl_path, strerror(errno));
    }
    reply_fd = open(reply_path, O_RDWR | O_APPEND | O_CREAT, 0644);
    if (reply_fd < 0) {
        fatal("%s: %s", reply_path, strerror(errno));
    }
    ctl = fdopen(ctl_fd, "r");
    if (!ctl) {
        fatal("fdopen: %s", strerror(errno));
    }

    if (pipe(done_fd)) {
        fatal("pipe: %s", strerror(errno));
    }
    for (i = 0; i < N_WORKERS; i++) {
        int error;

        if (pipe(workers[i].job_fd)) {
            fatal("pipe: %s", strerror(errno));
        }
        error = pthread_create(&workers[i].thread, NULL, worker_main,
                               (void *) (intptr_t) i);
        if (error) {
            fatal("pthread_create: %s", strerror(error));
        }
    }

    /* Wait for every worker to start, and then to block in read(). */
    for (i = 0; i < N_WORKERS; i++) {
        struct done_msg msg;

        read_done(&msg, -1);
    }
    for (i = 0; i < N_WORKERS; i++) {
        if (!wait_blocked(i)) {
            fatal("%s did not block in read()", workers[i].name);
        }
        printf("%d %s\n", (int) workers[i].tid, workers[i].name);
    }
    printf("ready\n");
    fflush(stdout);

    for (;;) {
        char reply[256];
        bool more;
        size_t len;

        if (getline(&line, &line_size, ctl) < 0) {
            fatal("%s: read error", ctl_path);
        }
        more = execute(line, reply, sizeof reply - 1);
        len = strlen(reply);
        reply[len++] = '\n';
        if (write(reply_fd, reply, len) != (ssize_t) len) {
            fatal("%s: write: %s", reply_path, strerror(errno));
        }
        if (!more) {
            break;
        }
    }
    free(line);
    return EXIT_SUCCESS;
}
