/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Unit tests of src/http.c: the --metrics endpoint's server, on loopback,
 * driven as the waits drive it, against good and hostile clients. */

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "http.h"
#include "util.h"
#include "check.h"

/* The handler: says what it was asked. */
static const char *
handler(void *aux, const struct kd_http_request *r, struct kd_ds *body)
{
    int *calls = aux;

    ++*calls;
    kd_ds_put_format(body, "accept=[%s] head=%d\n", r->accept, r->head);
    return "text/plain; version=0.0.4; charset=utf-8";
}

/* One round of the server: what its sockets are ready for within 'ms'. */
static void
serve(struct kd_http *http, int ms)
{
    struct pollfd fds[KD_HTTP_MAX_CONNS + 1];
    size_t n = kd_http_fds(http, fds);

    poll(fds, n, ms);
    kd_http_serve(http, fds, n, kd_now_ns());
}

static struct kd_http *
open_server(int *calls)
{
    struct kd_http *http = NULL;
    char *error = NULL;

    *calls = 0;
    if (kd_http_open(&http, "127.0.0.1:0", "/metrics", handler, calls,
                     &error)) {
        check_fail(__FILE__, __LINE__, "kd_http_open: %s", error);
        free(error);
        return NULL;
    }
    return http;
}

/* A client connected to 'http', accepted. */
static int
client(struct kd_http *http)
{
    const char *address = kd_http_address(http);
    struct sockaddr_in sin = { .sin_family = AF_INET };
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

    sin.sin_port = htons(atoi(strrchr(address, ':') + 1));
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *) &sin, sizeof sin)) {
        check_fail(__FILE__, __LINE__, "connect: %s", strerror(errno));
    }
    serve(http, 50);
    return fd;
}

static void
send_all(int fd, const char *s, size_t len)
{
    while (len) {
        ssize_t n = send(fd, s, len, MSG_NOSIGNAL);

        if (n <= 0) {
            return;
        }
        s += n;
        len -= n;
    }
}

/* What the server answers on 'fd', serving it meanwhile: up to 'n_answers'
 * whole answers, or all until it closes ('*closed'). */
static char *
answers(struct kd_http *http, int fd, int n_answers, bool *closed)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    *closed = false;
    for (int round = 0; round < 100; round++) {
        char buf[65536];
        ssize_t n;
        int whole = 0;

        serve(http, 5);
        n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n == 0 || (n < 0 && errno != EAGAIN)) {
            *closed = true;
            break;
        } else if (n > 0) {
            kd_ds_put_buffer(&ds, buf, n);
        }
        /* Whole answers so far: heads and their bodies. */
        for (const char *p = kd_ds_cstr(&ds), *h;
             (h = strstr(p, "\r\n\r\n")) != NULL; whole++) {
            const char *cl = strstr(p, "Content-Length: ");
            size_t len = cl && cl < h ? strtoul(cl + 16, NULL, 10) : 0;

            if (strstr(p, "HEAD") || (size_t) (kd_ds_cstr(&ds) + ds.length
                                               - (h + 4)) < len) {
                len = 0;
            }
            p = h + 4 + len;
        }
        if (n_answers && whole >= n_answers) {
            break;
        }
    }
    return kd_ds_steal_cstr(&ds);
}

#define REQUEST(PATH) "GET " PATH " HTTP/1.1\r\nHost: x\r\n"

static void
test_http_get(void)
{
    int calls, fd;
    struct kd_http *http = open_server(&calls);
    bool closed;
    char *text;
    static const char req[] = REQUEST("/metrics?x=1")
        "Accept: application/openmetrics-text;version=1.0.0\r\n"
        "Accept: text/plain;q=0.5\r\n\r\n";

    if (!http) {
        return;
    }
    CHECK(!strncmp(kd_http_address(http), "127.0.0.1:", 10));
    fd = client(http);
    send_all(fd, req, strlen(req));
    text = answers(http, fd, 1, &closed);
    CHECK_STR(text,
              "HTTP/1.1 200 OK\r\n"
              "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
              "Content-Length: 76\r\n"
              "Connection: keep-alive\r\n\r\n"
              "accept=[application/openmetrics-text;version=1.0.0,"
              "text/plain;q=0.5] head=0\n");
    CHECK(!closed);
    free(text);

    /* Kept alive: two more, pipelined; then a HEAD. */
    send_all(fd, REQUEST("/metrics") "\r\n" REQUEST("/metrics") "\r\n",
             2 * strlen(REQUEST("/metrics") "\r\n"));
    text = answers(http, fd, 2, &closed);
    CHECK_STR(text,
              "HTTP/1.1 200 OK\r\n"
              "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
              "Content-Length: 17\r\n"
              "Connection: keep-alive\r\n\r\n"
              "accept=[] head=0\n"
              "HTTP/1.1 200 OK\r\n"
              "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
              "Content-Length: 17\r\n"
              "Connection: keep-alive\r\n\r\n"
              "accept=[] head=0\n");
    free(text);
    send_all(fd, "HEAD /metrics HTTP/1.0\r\n\r\n", 26);
    text = answers(http, fd, 0, &closed);
    CHECK_STR(text,
              "HTTP/1.1 200 OK\r\n"
              "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
              "Content-Length: 17\r\n"
              "Connection: close\r\n\r\n");
    CHECK(closed);
    CHECK_INT(calls, 4);
    CHECK_UINT(kd_http_stats(http)->responses[KD_HTTP_200], 4);
    free(text);
    close(fd);
    kd_http_close(http);
}

/* The request 'req' is answered 'status' and closed. */
static void
check_refused(struct kd_http *http, const char *req, size_t len,
              const char *status)
{
    int fd = client(http);
    bool closed;
    char *text;

    send_all(fd, req, len);
    text = answers(http, fd, 0, &closed);
    if (!CHECK(!strncmp(text, status, strlen(status)))) {
        fprintf(stderr, "  request: %.60s\n  answer: %.200s\n", req, text);
    }
    CHECK(closed);
    free(text);
    close(fd);
}

static void
test_http_refused(void)
{
    static const char nul[] = "GET /metrics HTTP/1.1\r\nA: \0\r\n\r\n";
    static const char tls[] = "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\n\n";
    int calls;
    struct kd_http *http = open_server(&calls);
    char *huge;

    if (!http) {
        return;
    }
#define REFUSED(REQ, STATUS) check_refused(http, REQ, strlen(REQ), STATUS)
    REFUSED(REQUEST("/") "\r\n", "HTTP/1.1 404 Not Found\r\n");
    REFUSED(REQUEST("/metricsx") "\r\n", "HTTP/1.1 404 Not Found\r\n");
    REFUSED("POST /metrics HTTP/1.1\r\n\r\n",
            "HTTP/1.1 405 Method Not Allowed\r\n"
            "Content-Type: text/plain; charset=utf-8\r\n"
            "Content-Length: 19\r\n"
            "Connection: close\r\n"
            "Allow: GET, HEAD\r\n\r\n"
            "Method Not Allowed\n");
    REFUSED("hello\r\n\r\n", "HTTP/1.1 400 Bad Request\r\n");
    REFUSED("GET /metrics HTTP/2.0\r\n\r\n", "HTTP/1.1 400 Bad Request\r\n");
    REFUSED("GET metrics HTTP/1.1\r\n\r\n", "HTTP/1.1 400 Bad Request\r\n");
    REFUSED(REQUEST("/metrics") "Content-Length: 5\r\n\r\nhello",
            "HTTP/1.1 400 Bad Request\r\n");
    REFUSED(REQUEST("/metrics") "Transfer-Encoding: chunked\r\n\r\n",
            "HTTP/1.1 400 Bad Request\r\n");
    REFUSED(REQUEST("/metrics") " folded: header\r\n\r\n",
            "HTTP/1.1 400 Bad Request\r\n");
    REFUSED(REQUEST("/metrics") "No colon\r\n\r\n",
            "HTTP/1.1 400 Bad Request\r\n");
#undef REFUSED
    check_refused(http, nul, sizeof nul - 1, "HTTP/1.1 400 Bad Request\r\n");
    check_refused(http, tls, sizeof tls - 1, "HTTP/1.1 400 Bad Request\r\n");

    /* Headers beyond the bound, never ended. */
    huge = kd_xmalloc(3 * KD_HTTP_MAX_REQUEST);
    memset(huge, 'a', 3 * KD_HTTP_MAX_REQUEST);
    memcpy(huge, REQUEST("/metrics") "X: ", strlen(REQUEST("/metrics")) + 3);
    check_refused(http, huge, 3 * KD_HTTP_MAX_REQUEST,
                  "HTTP/1.1 431 Request Header Fields Too Large\r\n");
    free(huge);
    CHECK_INT(calls, 0);
    CHECK_UINT(kd_http_stats(http)->responses[KD_HTTP_400], 9);
    CHECK_UINT(kd_http_stats(http)->responses[KD_HTTP_404], 2);
    kd_http_close(http);
}

/* A request begun and never ended gets 408 at its deadline; an idle
 * connection is closed; more connections than allowed evict the one that
 * waited longest; the server still answers. */
static void
test_http_slow_and_many(void)
{
    int calls, fds[KD_HTTP_MAX_CONNS + 1], slow, idle, good;
    struct kd_http *http = open_server(&calls);
    char buf[256];
    bool closed;
    char *text;
    ssize_t n;

    if (!http) {
        return;
    }
    slow = client(http);
    send_all(slow, "GET /metr", 9);
    idle = client(http);
    serve(http, 10);
    CHECK(kd_http_deadline(http) <= kd_now_ns() + KD_HTTP_TIMEOUT_NS);
    kd_http_serve(http, NULL, 0, kd_now_ns() + KD_HTTP_TIMEOUT_NS + 1);
    n = recv(slow, buf, sizeof buf - 1, 0);
    buf[n > 0 ? n : 0] = '\0';
    CHECK(!strncmp(buf, "HTTP/1.1 408 Request Timeout\r\n", 30));
    CHECK_INT(recv(idle, buf, sizeof buf, 0), 0);
    CHECK_UINT(kd_http_stats(http)->timed_out, 2);
    CHECK_UINT(kd_http_stats(http)->responses[KD_HTTP_408], 1);
    close(slow);
    close(idle);
    CHECK(kd_http_deadline(http) == UINT64_MAX);

    for (size_t i = 0; i < KD_ARRAY_SIZE(fds); i++) {
        fds[i] = client(http);
    }
    CHECK_UINT(kd_http_stats(http)->evicted, 1);
    CHECK_INT(recv(fds[0], buf, sizeof buf, 0), 0);
    good = fds[KD_HTTP_MAX_CONNS];
    send_all(good, REQUEST("/metrics") "Connection: close\r\n\r\n",
             strlen(REQUEST("/metrics") "Connection: close\r\n\r\n"));
    text = answers(http, good, 0, &closed);
    CHECK(!strncmp(text, "HTTP/1.1 200 OK\r\n", 17));
    CHECK_CONTAINS(text, "Connection: close\r\n");
    CHECK(closed);
    free(text);
    for (size_t i = 0; i < KD_ARRAY_SIZE(fds); i++) {
        close(fds[i]);
    }
    kd_http_close(http);
}

static void
test_http_addresses(void)
{
    static const struct {
        const char *where;
        const char *host;
        int port;
    } good[] = {
        { "127.0.0.1:9478", "127.0.0.1", 9478 },
        { ":9478", NULL, 9478 },
        { "[::1]:0", "::1", 0 },
        { "[fe80::1%eth0]:65535", "fe80::1%eth0", 65535 },
        { "localhost:80", "localhost", 80 },
        { "node-1.example:9478", "node-1.example", 9478 },
    };
    static const char *const bad[] = {
        "", "9478", "127.0.0.1", "127.0.0.1:", "127.0.0.1:65536",
        "127.0.0.1:-1", "127.0.0.1:94x", "::1:9478", "[::1]9478", "[]:1",
        "[::1:9478", "a b:1", "host/x:1", "127.0.0.1:123456",
    };
    struct kd_http *http = NULL;
    char *error = NULL;

    for (size_t i = 0; i < KD_ARRAY_SIZE(good); i++) {
        char *host = (char *) "unset";
        uint16_t port = 1;

        if (!CHECK_INT(kd_http_parse_address(good[i].where, &host, &port),
                       0)) {
            continue;
        }
        if (good[i].host) {
            CHECK_STR(host, good[i].host);
        } else {
            CHECK(host == NULL);
        }
        CHECK_INT(port, good[i].port);
        free(host);
    }
    for (size_t i = 0; i < KD_ARRAY_SIZE(bad); i++) {
        char *host = NULL;
        uint16_t port;

        if (!CHECK_INT(kd_http_parse_address(bad[i], &host, &port),
                       EINVAL)) {
            fprintf(stderr, "  accepted: \"%s\"\n", bad[i]);
        }
        free(host);
    }

    /* A port taken: an error that says so. */
    if (!kd_http_open(&http, "127.0.0.1:0", "/metrics", handler, NULL,
                      &error)) {
        struct kd_http *again = NULL;

        CHECK_INT(kd_http_open(&again, kd_http_address(http), "/metrics",
                               handler, NULL, &error), EADDRINUSE);
        CHECK_CONTAINS(error, "Failed to listen on 127.0.0.1:");
        CHECK_CONTAINS(error, "Address already in use");
        free(error);
        kd_http_close(again);
        kd_http_close(http);
    }
}

static const struct test tests[] = {
    TEST(test_http_get),
    TEST(test_http_refused),
    TEST(test_http_slow_and_many),
    TEST(test_http_addresses),
};

CHECK_SUITE(http, tests)
