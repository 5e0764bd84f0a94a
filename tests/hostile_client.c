/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * hostile_client: hostile clients of the --metrics endpoint, for the e2e
 * scenario metrics_hostile (tests/e2e/metrics.sh).  For DURATION seconds,
 * at once, one thread each:
 *
 *  - holders: HOLDERS idle connections, more than the server keeps
 *    (KD_HTTP_MAX_CONNS, 16), each one opened again as soon as the server
 *    closes it;
 *  - garbage: 200 random bytes and an empty line, again and again;
 *  - huge: a request line and a header of 100,000 bytes, again and again;
 *  - slow: a request begun, then one more byte every half second
 *    (slowloris), until the server answers or closes;
 *  - never_reads: 200 requests at once on one connection, whose answers
 *    are never read, held longer than the server gives them.
 *
 * Loopback is what it is meant for: it connects where it is told.
 *
 * Usage: hostile_client HOST PORT DURATION
 * Prints one line of what the server did to it, "hostile: connections N,
 * 400 N, 431 N, 408 N, closed N, refused N", and exits 0; 2 on a usage
 * error, 1 if it could not run.
 */

#define _GNU_SOURCE

#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* Idle connections held open at once. */
#define HOLDERS 24

/* What the server did, counted. */
enum seen {
    SEEN_CONNECTIONS,           /* Connections it accepted. */
    SEEN_400,                   /* Answers 400 (garbage). */
    SEEN_431,                   /* Answers 431 (headers too large). */
    SEEN_408,                   /* Answers 408 (a request too slow). */
    SEEN_CLOSED,                /* Idle connections it closed. */
    SEEN_REFUSED,               /* Connections it did not take. */
    N_SEEN
};

static const char *const seen_names[N_SEEN] = {
    "connections", "400", "431", "408", "closed", "refused",
};

static unsigned long seen[N_SEEN];

static struct addrinfo *server;
static double end_time;

static void
count(enum seen what)
{
    __atomic_fetch_add(&seen[what], 1, __ATOMIC_RELAXED);
}

/* The monotonic time, in seconds. */
static double
now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool
running(void)
{
    return now() < end_time;
}

static void
nap(double seconds)
{
    struct timespec ts;

    if (seconds <= 0) {
        return;
    }
    ts.tv_sec = (time_t) seconds;
    ts.tv_nsec = (long) ((seconds - ts.tv_sec) * 1e9);
    while (nanosleep(&ts, &ts) && errno == EINTR) {
        continue;
    }
}

/* A connection to the server, whose sends and receives give up after 2 s,
 * or -1 (counted, after a short nap) if the server does not take it. */
static int
connect_server(void)
{
    struct timeval timeout = { .tv_sec = 2 };
    int fd;

    fd = socket(server->ai_family, server->ai_socktype | SOCK_CLOEXEC,
                server->ai_protocol);
    if (fd < 0) {
        count(SEEN_REFUSED);
        nap(0.05);
        return -1;
    }
    /* On Linux, the send timeout bounds connect() too. */
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    if (connect(fd, server->ai_addr, server->ai_addrlen)) {
        close(fd);
        count(SEEN_REFUSED);
        nap(0.05);
        return -1;
    }
    count(SEEN_CONNECTIONS);
    return fd;
}

/* Sends all of the 'n' bytes at 'data' on 'fd'.  Returns false if the
 * server closed the connection or did not take them within the send
 * timeout. */
static bool
send_all(int fd, const void *data, size_t n)
{
    const char *p = data;

    while (n > 0) {
        ssize_t sent = send(fd, p, n, MSG_NOSIGNAL);

        if (sent < 0 && errno == EINTR) {
            continue;
        }
        if (sent <= 0) {
            return false;
        }
        p += sent;
        n -= sent;
    }
    return true;
}

/* The status the server answers on 'fd' (0 if it closed first or said
 * nothing within the receive timeout). */
static int
answer(int fd)
{
    const char *space;
    char buf[4096];
    size_t n = 0;

    while (n < sizeof buf - 1) {
        ssize_t got = recv(fd, buf + n, sizeof buf - 1 - n, 0);

        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got <= 0) {
            break;
        }
        n += got;
        buf[n] = '\0';
        if (strstr(buf, "\r\n")) {
            break;
        }
    }
    buf[n] = '\0';
    space = strchr(buf, ' ');
    return space ? atoi(space + 1) : 0;
}

/* HOLDERS idle connections, each one opened again as soon as the server
 * closes it. */
static void *
holders(void *arg)
{
    int fds[HOLDERS];
    size_t n = 0;

    (void) arg;
    while (running()) {
        while (n < HOLDERS && running()) {
            int fd = connect_server();

            if (fd >= 0) {
                fds[n++] = fd;
            }
        }
        for (size_t i = 0; i < n; ) {
            char c;
            ssize_t got = recv(fds[i], &c, 1, MSG_DONTWAIT);

            if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK
                            || errno == EINTR)) {
                i++;
                continue;
            }
            /* Closed by the server (or answered, which an idle
             * connection never is). */
            count(SEEN_CLOSED);
            close(fds[i]);
            fds[i] = fds[--n];
        }
        nap(0.05);
    }
    for (size_t i = 0; i < n; i++) {
        close(fds[i]);
    }
    return NULL;
}

/* 200 random bytes, none a line feed, then an empty line: again and
 * again. */
static void *
garbage(void *arg)
{
    unsigned int seed = (unsigned int) getpid();

    (void) arg;
    while (running()) {
        char request[204];
        int fd = connect_server();

        if (fd < 0) {
            continue;
        }
        for (size_t i = 0; i < 200; i++) {
            request[i] = (char) rand_r(&seed);
            if (request[i] == '\n') {
                request[i] = 'x';
            }
        }
        memcpy(request + 200, "\r\n\r\n", 4);
        if (send_all(fd, request, sizeof request)) {
            int status = answer(fd);

            if (status == 400) {
                count(SEEN_400);
            } else if (status == 431) {
                count(SEEN_431);
            }
        }
        close(fd);
        nap(0.01);
    }
    return NULL;
}

/* A request line and a header of 100,000 bytes, far beyond what the
 * server reads: again and again. */
static void *
huge(void *arg)
{
    static const char start[] = "GET /metrics HTTP/1.1\r\nX: ";
    size_t size = sizeof start - 1 + 100000;
    char *request = malloc(size);

    (void) arg;
    if (!request) {
        perror("hostile_client: malloc");
        exit(1);
    }
    memcpy(request, start, sizeof start - 1);
    memset(request + sizeof start - 1, 'a', 100000);
    while (running()) {
        int fd = connect_server();

        if (fd < 0) {
            continue;
        }
        /* The server answers before it took it all: the send fails. */
        send_all(fd, request, size);
        if (answer(fd) == 431) {
            count(SEEN_431);
        }
        close(fd);
        nap(0.1);
    }
    free(request);
    return NULL;
}

/* A request begun, then one byte more every half second, until the server
 * answers or closes the connection: again and again. */
static void *
slow(void *arg)
{
    static const char start[] = "GET /metrics HTTP/1.1\r\n";

    (void) arg;
    while (running()) {
        int fd = connect_server();

        if (fd < 0) {
            continue;
        }
        if (!send_all(fd, start, sizeof start - 1)) {
            close(fd);
            continue;
        }
        while (running()) {
            char buf[4096];
            ssize_t got;

            if (send(fd, "X", 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0
                && errno != EAGAIN && errno != EWOULDBLOCK) {
                break;
            }
            nap(0.5);
            got = recv(fd, buf, sizeof buf - 1, MSG_DONTWAIT);
            if (got > 0) {
                buf[got] = '\0';
                if (strstr(buf, " 408 ")) {
                    count(SEEN_408);
                }
                break;
            }
            if (got == 0
                || (errno != EAGAIN && errno != EWOULDBLOCK
                    && errno != EINTR)) {
                break;
            }
        }
        close(fd);
    }
    return NULL;
}

/* 200 requests sent at once on one connection, whose answers are never
 * read, held longer than the server gives it to take them: again and
 * again. */
static void *
never_reads(void *arg)
{
    static const char one[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
    size_t size = 200 * (sizeof one - 1);
    char *requests = malloc(size);

    (void) arg;
    if (!requests) {
        perror("hostile_client: malloc");
        exit(1);
    }
    for (size_t i = 0; i < 200; i++) {
        memcpy(requests + i * (sizeof one - 1), one, sizeof one - 1);
    }
    while (running()) {
        int fd = connect_server();
        double left;

        if (fd < 0) {
            continue;
        }
        send_all(fd, requests, size);
        left = end_time - now();
        nap(left < 6 ? left : 6);
        close(fd);
    }
    free(requests);
    return NULL;
}

int
main(int argc, char *argv[])
{
    static void *(*const clients[])(void *) = {
        holders, garbage, huge, slow, never_reads,
    };
    enum { N_CLIENTS = sizeof clients / sizeof clients[0] };
    struct addrinfo hints = {
        .ai_family = AF_UNSPEC,
        .ai_socktype = SOCK_STREAM,
    };
    pthread_t threads[N_CLIENTS];
    double duration;
    char *end;
    int error;

    if (argc != 4) {
        fprintf(stderr, "usage: hostile_client HOST PORT DURATION\n");
        return 2;
    }
    errno = 0;
    duration = strtod(argv[3], &end);
    if (errno || end == argv[3] || *end || duration < 0
        || duration > 86400) {
        fprintf(stderr, "hostile_client: '%s' is not a duration in "
                "seconds\n", argv[3]);
        return 2;
    }
    error = getaddrinfo(argv[1], argv[2], &hints, &server);
    if (error) {
        fprintf(stderr, "hostile_client: %s:%s: %s\n", argv[1], argv[2],
                gai_strerror(error));
        return 2;
    }

    /* The server's closing a connection must not kill the client. */
    signal(SIGPIPE, SIG_IGN);
    end_time = now() + duration;
    for (size_t i = 0; i < N_CLIENTS; i++) {
        error = pthread_create(&threads[i], NULL, clients[i], NULL);
        if (error) {
            fprintf(stderr, "hostile_client: pthread_create: %s\n",
                    strerror(error));
            return 1;
        }
    }
    for (size_t i = 0; i < N_CLIENTS; i++) {
        pthread_join(threads[i], NULL);
    }
    freeaddrinfo(server);

    printf("hostile:");
    for (size_t i = 0; i < N_SEEN; i++) {
        printf("%s %s %lu", i ? "," : "", seen_names[i],
               __atomic_load_n(&seen[i], __ATOMIC_RELAXED));
    }
    printf("\n");
    return 0;
}
