/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* A small non-blocking HTTP/1.x server: the --metrics endpoint. */

#include "http.h"

#include <ctype.h>
#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

/* One connection. */
struct kd_http_conn {
    int fd;                     /* -1: a free slot. */
    uint64_t deadline;          /* For its request, or for its answer. */
    char in[KD_HTTP_MAX_REQUEST];
    size_t n_in;
    struct kd_ds out;           /* The answer being written. */
    size_t out_done;
    bool writing;
    bool close_after;           /* Once its answer is written. */
};

struct kd_http {
    int fd;
    char *address;
    char *path;
    kd_http_handler *handler;
    void *aux;
    struct kd_http_conn conns[KD_HTTP_MAX_CONNS];
    struct kd_http_stats stats;
};

static const struct {
    int code;
    const char *reason;
} kd_http_status_defs[] = {
#define KD_HTTP_STATUS_DEF(CODE, REASON) { CODE, REASON },
    KD_HTTP_STATUSES(KD_HTTP_STATUS_DEF)
#undef KD_HTTP_STATUS_DEF
};

int
kd_http_status_code(enum kd_http_status status)
{
    return status < KD_HTTP_N_STATUSES ? kd_http_status_defs[status].code
                                       : 500;
}

/* Whether 's' (of 'len' bytes) is made of digits only, 1 to 5 of them. */
static bool
kd_http_is_port(const char *s, size_t len)
{
    return len >= 1 && len <= 5 && strspn(s, "0123456789") >= len;
}

int
kd_http_parse_address(const char *where, char **host, uint16_t *port)
{
    const char *colon = strrchr(where, ':');
    const char *h = where, *h_end;
    unsigned long p;

    *host = NULL;
    if (!colon || !kd_http_is_port(colon + 1, strlen(colon + 1))) {
        return EINVAL;
    }
    p = strtoul(colon + 1, NULL, 10);
    if (p > 65535) {
        return EINVAL;
    }
    h_end = colon;
    if (*where == '[') {
        /* An IPv6 address: "[::1]:9478". */
        h = where + 1;
        if (colon == where || colon[-1] != ']' || colon - 1 == h
            || strspn(h, "0123456789abcdefghijklmnopqrstuvwxyz"
                         "ABCDEFGHIJKLMNOPQRSTUVWXYZ:.%")
               < (size_t) (colon - 1 - h)) {
            return EINVAL;
        }
        h_end = colon - 1;
    } else if (memchr(where, ':', colon - where)
               || strspn(where, "abcdefghijklmnopqrstuvwxyz"
                                "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_")
                  < (size_t) (colon - where)) {
        return EINVAL;
    }
    if (h_end > h) {
        *host = kd_xmalloc(h_end - h + 1);
        memcpy(*host, h, h_end - h);
        (*host)[h_end - h] = '\0';
    }
    *port = p;
    return 0;
}

/* "ADDR:PORT" of socket 'fd', as it is bound, into a new string. */
static char *
kd_http_bound_address(int fd)
{
    char host[NI_MAXHOST], serv[NI_MAXSERV];
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;

    if (getsockname(fd, (struct sockaddr *) &ss, &len)
        || getnameinfo((struct sockaddr *) &ss, len, host, sizeof host, serv,
                       sizeof serv, NI_NUMERICHOST | NI_NUMERICSERV)) {
        return kd_xstrdup("?");
    }
    return kd_xasprintf(ss.ss_family == AF_INET6 ? "[%s]:%s" : "%s:%s",
                        host, serv);
}

/* A listening socket on 'host' (NULL: every address) and 'port'.
 * Returns it, or -1 with the error in '*err' and '*why'. */
static int
kd_http_listen(const char *host, uint16_t port, int *err, const char **why)
{
    struct addrinfo hints = {
        .ai_flags = AI_PASSIVE | AI_NUMERICSERV,
        .ai_family = AF_UNSPEC,
        .ai_socktype = SOCK_STREAM,
    };
    struct addrinfo *res, *ai;
    char serv[8];
    int fd = -1, rc;

    snprintf(serv, sizeof serv, "%u", port);
    rc = getaddrinfo(host, serv, &hints, &res);
    if (rc) {
        *err = EADDRNOTAVAIL;
        *why = gai_strerror(rc);
        return -1;
    }
    *err = EADDRNOTAVAIL;
    for (ai = res; ai && fd < 0; ai = ai->ai_next) {
        int one = 1;

        fd = socket(ai->ai_family,
                    ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                    ai->ai_protocol);
        if (fd < 0) {
            *err = errno;
            continue;
        }
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 64)) {
            *err = errno;
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    *why = fd < 0 ? strerror(*err) : NULL;
    return fd;
}

int
kd_http_open(struct kd_http **httpp, const char *where, const char *path,
             kd_http_handler *handler, void *aux, char **error)
{
    struct kd_http *http;
    const char *why;
    uint16_t port;
    char *host;
    int fd, err;

    *httpp = NULL;
    if (kd_http_parse_address(where, &host, &port)) {
        *error = kd_xasprintf("Invalid address %s: expected ADDR:PORT",
                              where);
        return EINVAL;
    }
    fd = kd_http_listen(host, port, &err, &why);
    free(host);
    if (fd < 0) {
        *error = kd_xasprintf("Failed to listen on %s: %s", where, why);
        return err;
    }
    http = kd_xcalloc(1, sizeof *http);
    http->fd = fd;
    http->address = kd_http_bound_address(fd);
    http->path = kd_xstrdup(path);
    http->handler = handler;
    http->aux = aux;
    for (size_t i = 0; i < KD_HTTP_MAX_CONNS; i++) {
        http->conns[i].fd = -1;
    }
    *httpp = http;
    return 0;
}

const char *
kd_http_address(const struct kd_http *http)
{
    return http->address;
}

const struct kd_http_stats *
kd_http_stats(const struct kd_http *http)
{
    return &http->stats;
}

size_t
kd_http_fds(const struct kd_http *http, struct pollfd *fds)
{
    size_t n = 0;

    fds[n++] = (struct pollfd) { .fd = http->fd, .events = POLLIN };
    for (size_t i = 0; i < KD_HTTP_MAX_CONNS; i++) {
        const struct kd_http_conn *c = &http->conns[i];

        if (c->fd >= 0) {
            fds[n++] = (struct pollfd) {
                .fd = c->fd, .events = c->writing ? POLLOUT : POLLIN,
            };
        }
    }
    return n;
}

uint64_t
kd_http_deadline(const struct kd_http *http)
{
    uint64_t deadline = UINT64_MAX;

    for (size_t i = 0; i < KD_HTTP_MAX_CONNS; i++) {
        if (http->conns[i].fd >= 0) {
            deadline = KD_MIN(deadline, http->conns[i].deadline);
        }
    }
    return deadline;
}

static void
kd_http_conn_close(struct kd_http_conn *c)
{
    close(c->fd);
    c->fd = -1;
    c->n_in = 0;
    c->out_done = 0;
    c->writing = false;
    c->close_after = false;
    kd_ds_destroy(&c->out);
}

/* Queues the answer 'status' with 'body' (of 'content_type'; the body
 * left out for a HEAD), keeping the connection alive or not. */
static void
kd_http_answer(struct kd_http *http, struct kd_http_conn *c,
               enum kd_http_status status, const char *content_type,
               const struct kd_ds *body, bool head, bool keep_alive,
               uint64_t now)
{
    http->stats.responses[status]++;
    c->out.length = 0;
    kd_ds_put_format(&c->out, "HTTP/1.1 %d %s\r\n"
                     "Content-Type: %s\r\n"
                     "Content-Length: %zu\r\n"
                     "Connection: %s\r\n",
                     kd_http_status_defs[status].code,
                     kd_http_status_defs[status].reason, content_type,
                     body->length, keep_alive ? "keep-alive" : "close");
    if (status == KD_HTTP_405) {
        kd_ds_put_cstr(&c->out, "Allow: GET, HEAD\r\n");
    }
    kd_ds_put_cstr(&c->out, "\r\n");
    if (!head) {
        kd_ds_put_buffer(&c->out, body->string ? body->string : "",
                         body->length);
    }
    c->out_done = 0;
    c->writing = true;
    c->close_after = !keep_alive;
    c->deadline = now + KD_HTTP_TIMEOUT_NS;
}

/* An error answer, and the connection closed once it is written. */
static void
kd_http_error(struct kd_http *http, struct kd_http_conn *c,
              enum kd_http_status status, uint64_t now)
{
    struct kd_ds body = KD_DS_EMPTY_INITIALIZER;

    kd_ds_put_format(&body, "%s\n", kd_http_status_defs[status].reason);
    kd_http_answer(http, c, status, "text/plain; charset=utf-8", &body,
                   false, false, now);
    kd_ds_destroy(&body);
}

/* Whether 'c' is an HTTP token character (RFC 9110). */
static bool
kd_http_tchar(unsigned char c)
{
    return isalnum(c) || (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* The headers of a request that matter here. */
struct kd_http_parsed {
    bool head, get, http11, close, keep_alive, bad;
    struct kd_ds accept;
    const char *target;
    size_t target_len;
};

/* Parses header line 'line' (of 'len' bytes, without its end of line)
 * into 'p'. */
static void
kd_http_parse_header(const char *line, size_t len, struct kd_http_parsed *p)
{
    size_t name_len = 0, v;
    const char *value;
    size_t value_len;

    while (name_len < len && kd_http_tchar(line[name_len])) {
        name_len++;
    }
    if (!name_len || name_len == len || line[name_len] != ':') {
        p->bad = true;
        return;
    }
    v = name_len + 1;
    while (v < len && (line[v] == ' ' || line[v] == '\t')) {
        v++;
    }
    value = line + v;
    value_len = len - v;
    while (value_len && (value[value_len - 1] == ' '
                         || value[value_len - 1] == '\t')) {
        value_len--;
    }
    for (size_t i = 0; i < value_len; i++) {
        if ((unsigned char) value[i] < 0x20 && value[i] != '\t') {
            p->bad = true;
            return;
        }
    }
#define KD_HTTP_IS(NAME) \
    (name_len == sizeof NAME - 1 && !strncasecmp(line, NAME, name_len))
    if (KD_HTTP_IS("Accept")) {
        if (p->accept.length) {
            kd_ds_put_char(&p->accept, ',');
        }
        kd_ds_put_buffer(&p->accept, value, value_len);
    } else if (KD_HTTP_IS("Connection")) {
        for (size_t i = 0; i < value_len; i += strcspn(value + i, ","),
                                          i += i < value_len) {
            size_t s = i + strspn(value + i, " \t");
            size_t n = strcspn(value + s, ", \t");

            n = KD_MIN(n, value_len - s);
            if (n == 5 && !strncasecmp(value + s, "close", 5)) {
                p->close = true;
            } else if (n == 10 && !strncasecmp(value + s, "keep-alive", 10)) {
                p->keep_alive = true;
            }
        }
    } else if (KD_HTTP_IS("Content-Length")) {
        /* No request here has a body. */
        if (value_len != 1 || value[0] != '0') {
            p->bad = true;
        }
    } else if (KD_HTTP_IS("Transfer-Encoding")) {
        p->bad = true;
    }
#undef KD_HTTP_IS
}

/* Parses the request line 'line' (of 'len' bytes) into 'p'. */
static void
kd_http_parse_request_line(const char *line, size_t len,
                           struct kd_http_parsed *p)
{
    size_t m = 0, t, t_end;

    while (m < len && m < 16 && line[m] >= 'A' && line[m] <= 'Z') {
        m++;
    }
    if (!m || m == len || line[m] != ' ') {
        p->bad = true;
        return;
    }
    t = m + 1;
    t_end = t;
    while (t_end < len && (unsigned char) line[t_end] > 0x20
           && line[t_end] != 0x7f) {
        t_end++;
    }
    if (t_end == t || line[t] != '/' || len - t_end != 9
        || line[t_end] != ' ') {
        p->bad = true;
        return;
    }
    if (!memcmp(line + t_end + 1, "HTTP/1.1", 8)) {
        p->http11 = true;
    } else if (memcmp(line + t_end + 1, "HTTP/1.0", 8)) {
        p->bad = true;
        return;
    }
    p->get = m == 3 && !memcmp(line, "GET", 3);
    p->head = m == 4 && !memcmp(line, "HEAD", 4);
    p->target = line + t;
    p->target_len = t_end - t;
}

/* The length of the line that starts at 'line' (up to 'end'), without its
 * end of line ("\r\n" or "\n"), and in '*next' where the next one starts;
 * or SIZE_MAX if it has no end. */
static size_t
kd_http_line(const char *line, const char *end, const char **next)
{
    const char *nl = memchr(line, '\n', end - line);

    if (!nl) {
        return SIZE_MAX;
    }
    *next = nl + 1;
    return nl - line - (nl > line && nl[-1] == '\r');
}

/* Answers the request at the start of 'c->in' if it is whole.  Returns
 * false if more is needed. */
static bool
kd_http_request(struct kd_http *http, struct kd_http_conn *c, uint64_t now)
{
    const char *p = c->in, *end = c->in + c->n_in, *next;
    struct kd_http_parsed req = { .bad = false };
    struct kd_ds body = KD_DS_EMPTY_INITIALIZER;
    size_t len, path_len = strlen(http->path);
    bool first = true, keep_alive;

    /* Wait for the whole head: up to an empty line. */
    for (;;) {
        len = kd_http_line(p, end, &next);
        if (len == SIZE_MAX) {
            if (c->n_in == sizeof c->in) {
                kd_http_error(http, c, KD_HTTP_431, now);
                return true;
            }
            return false;
        }
        if (!len && !first) {
            break;
        }
        first = false;
        p = next;
    }

    if (memchr(c->in, '\0', next - c->in)) {
        req.bad = true;
    }
    p = c->in;
    len = kd_http_line(p, end, &p);
    kd_http_parse_request_line(c->in, len, &req);
    while (!req.bad && (len = kd_http_line(p, end, &next)) > 0) {
        kd_http_parse_header(p, len, &req);
        p = next;
    }
    /* The request is consumed; what follows is the next one. */
    len = end - next;
    memmove(c->in, next, len);
    c->n_in = len;

    if (req.bad) {
        kd_http_error(http, c, KD_HTTP_400, now);
    } else if (!req.get && !req.head) {
        kd_http_error(http, c, KD_HTTP_405, now);
    } else if (req.target_len < path_len
               || memcmp(req.target, http->path, path_len)
               || (req.target_len > path_len
                   && req.target[path_len] != '?')) {
        kd_http_error(http, c, KD_HTTP_404, now);
    } else {
        struct kd_http_request r = {
            .accept = kd_ds_cstr(&req.accept), .head = req.head,
        };
        const char *type = http->handler(http->aux, &r, &body);

        keep_alive = req.http11 ? !req.close : req.keep_alive && !req.close;
        kd_http_answer(http, c, KD_HTTP_200, type, &body, req.head,
                       keep_alive, now);
    }
    kd_ds_destroy(&body);
    kd_ds_destroy(&req.accept);
    return true;
}

/* Writes what it can of the answer of 'c'; once it is written, closes it
 * or answers the next request it already sent. */
static void
kd_http_write(struct kd_http *http, struct kd_http_conn *c, uint64_t now)
{
    while (c->writing) {
        ssize_t n = send(c->fd, c->out.string + c->out_done,
                         c->out.length - c->out_done,
                         MSG_NOSIGNAL | MSG_DONTWAIT);

        if (n < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                kd_http_conn_close(c);
            }
            return;
        }
        c->out_done += n;
        if (c->out_done < c->out.length) {
            continue;
        }
        if (c->close_after) {
            shutdown(c->fd, SHUT_WR);
            kd_http_conn_close(c);
            return;
        }
        c->writing = false;
        c->deadline = now + KD_HTTP_TIMEOUT_NS;
        if (c->n_in) {
            /* A request sent before this answer: one per call, at most,
             * so that a client cannot keep the loop here. */
            kd_http_request(http, c, now);
            return;
        }
    }
}

/* Reads what 'c' sent, and answers it once it is a whole request. */
static void
kd_http_read(struct kd_http *http, struct kd_http_conn *c, uint64_t now)
{
    ssize_t n = recv(c->fd, c->in + c->n_in, sizeof c->in - c->n_in,
                     MSG_DONTWAIT);

    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK
                  || errno == EINTR)) {
        return;
    } else if (n <= 0) {
        kd_http_conn_close(c);
        return;
    }
    c->n_in += n;
    if (kd_http_request(http, c, now)) {
        kd_http_write(http, c, now);
    }
}

/* Accepts new connections, each one evicting the one that waited longest
 * when every slot is taken. */
static void
kd_http_accept(struct kd_http *http, uint64_t now)
{
    for (int i = 0; i < KD_HTTP_ACCEPTS_PER_CALL; i++) {
        struct kd_http_conn *slot = NULL;
        int fd = accept4(http->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

        if (fd < 0) {
            return;
        }
        for (size_t j = 0; j < KD_HTTP_MAX_CONNS; j++) {
            struct kd_http_conn *c = &http->conns[j];

            if (c->fd < 0) {
                slot = c;
                break;
            }
            if (!slot || c->deadline < slot->deadline) {
                slot = c;
            }
        }
        if (slot->fd >= 0) {
            http->stats.evicted++;
            kd_http_conn_close(slot);
        }
        http->stats.accepted++;
        slot->fd = fd;
        slot->deadline = now + KD_HTTP_TIMEOUT_NS;
    }
}

/* Closes 'c', whose deadline passed: a request begun is answered 408 (if
 * the client takes it at once). */
static void
kd_http_expire(struct kd_http *http, struct kd_http_conn *c, uint64_t now)
{
    http->stats.timed_out++;
    if (!c->writing && c->n_in) {
        kd_http_error(http, c, KD_HTTP_408, now);
        send(c->fd, c->out.string, c->out.length,
             MSG_NOSIGNAL | MSG_DONTWAIT);
    }
    kd_http_conn_close(c);
}

void
kd_http_serve(struct kd_http *http, const struct pollfd *fds, size_t n,
              uint64_t now)
{
    bool accept = false;

    for (size_t i = 0; i < n; i++) {
        if (!fds[i].revents) {
            continue;
        } else if (fds[i].fd == http->fd) {
            accept = true;
            continue;
        }
        for (size_t j = 0; j < KD_HTTP_MAX_CONNS; j++) {
            struct kd_http_conn *c = &http->conns[j];

            if (c->fd != fds[i].fd) {
                continue;
            } else if (c->writing) {
                kd_http_write(http, c, now);
            } else {
                kd_http_read(http, c, now);
            }
            break;
        }
    }
    for (size_t j = 0; j < KD_HTTP_MAX_CONNS; j++) {
        struct kd_http_conn *c = &http->conns[j];

        if (c->fd >= 0 && c->deadline <= now) {
            kd_http_expire(http, c, now);
        }
    }
    if (accept) {
        kd_http_accept(http, now);
    }
}

void
kd_http_close(struct kd_http *http)
{
    if (!http) {
        return;
    }
    for (size_t i = 0; i < KD_HTTP_MAX_CONNS; i++) {
        if (http->conns[i].fd >= 0) {
            kd_http_conn_close(&http->conns[i]);
        }
    }
    close(http->fd);
    free(http->address);
    free(http->path);
    free(http);
}
