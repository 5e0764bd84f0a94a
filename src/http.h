/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_HTTP_H
#define KD_HTTP_H 1

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* A small HTTP/1.x server for the --metrics endpoint, served from the
 * tool's own waits (waiter.h) and never blocking them: every socket is
 * non-blocking, and each call does a bounded amount of work.
 *
 * It answers GET and HEAD of one path (with any query string) through a
 * handler, 404 for any other path, 405 for any other method.  A request
 * is at most KD_HTTP_MAX_REQUEST bytes of request line and headers (431,
 * closed) and has no body (400, closed); anything that is not HTTP/1.0 or
 * HTTP/1.1 is answered 400 and closed.  A connection must bring a whole
 * request within KD_HTTP_TIMEOUT_NS of its accept or of its previous
 * answer (then 408 and closed; silently closed if it had sent nothing),
 * and take its answer within as long (closed).  At most KD_HTTP_MAX_CONNS
 * connections are open: one more evicts the one that waited longest.
 * HTTP/1.1 connections are kept alive, as Prometheus keeps them. */

#define KD_HTTP_MAX_CONNS 16
#define KD_HTTP_MAX_REQUEST 8192
#define KD_HTTP_TIMEOUT_NS 5000000000ull

/* Connections accepted per call of kd_http_serve(), at most. */
#define KD_HTTP_ACCEPTS_PER_CALL 32

/* The statuses it answers with, KD_HTTP_STATUS(CODE, REASON). */
#define KD_HTTP_STATUSES(KD_HTTP_STATUS)                                \
    KD_HTTP_STATUS(200, "OK")                                           \
    KD_HTTP_STATUS(400, "Bad Request")                                  \
    KD_HTTP_STATUS(404, "Not Found")                                    \
    KD_HTTP_STATUS(405, "Method Not Allowed")                           \
    KD_HTTP_STATUS(408, "Request Timeout")                              \
    KD_HTTP_STATUS(431, "Request Header Fields Too Large")

enum kd_http_status {
#define KD_HTTP_STATUS_ID(CODE, REASON) KD_HTTP_##CODE,
    KD_HTTP_STATUSES(KD_HTTP_STATUS_ID)
#undef KD_HTTP_STATUS_ID
    KD_HTTP_N_STATUSES
};

/* The numeric code of 'status' (200, 404, ...). */
int kd_http_status_code(enum kd_http_status);

/* What the server did so far. */
struct kd_http_stats {
    uint64_t responses[KD_HTTP_N_STATUSES];     /* By status. */
    uint64_t accepted;                          /* Connections. */
    uint64_t evicted;           /* Closed to make room for a new one. */
    uint64_t timed_out;         /* Closed at their deadline. */
};

/* What the handler is asked: the request's "Accept" header ("" if none),
 * and whether it is a HEAD (the body is then dropped). */
struct kd_http_request {
    const char *accept;
    bool head;
};

/* Writes the answer to 'request' into 'body' and returns its content
 * type (a static string). */
typedef const char *kd_http_handler(void *aux,
                                    const struct kd_http_request *request,
                                    struct kd_ds *body);

struct kd_http;

/* Parses "ADDR:PORT" ('where'): ADDR a host name, an IPv4 address, an
 * IPv6 address in brackets, or empty (every address); PORT 0 to 65535.
 * Sets '*host' (a new string, NULL for an empty ADDR) and '*port'.
 * Returns 0 or EINVAL. */
int kd_http_parse_address(const char *where, char **host, uint16_t *port);

/* Listens on 'where' ("ADDR:PORT") for GET 'path', answered by 'handler'
 * (with 'aux').  Returns 0 and the server in '*http', or a positive
 * errno and a message in '*error' (to free). */
int kd_http_open(struct kd_http **http, const char *where, const char *path,
                 kd_http_handler *handler, void *aux, char **error);

/* The address it listens on, "ADDR:PORT" with the port it got (for a
 * PORT of 0): a string the server owns. */
const char *kd_http_address(const struct kd_http *);

/* Fills 'fds' (room for KD_HTTP_MAX_CONNS + 1) with what the server waits
 * for.  Returns how many. */
size_t kd_http_fds(const struct kd_http *, struct pollfd *fds);

/* The earliest monotonic time (kd_now_ns()) at which a connection's
 * deadline passes, or UINT64_MAX. */
uint64_t kd_http_deadline(const struct kd_http *);

/* Does what the 'n' 'fds' (as kd_http_fds() filled them, with the events
 * that ppoll() found) are ready for, and closes the connections whose
 * deadline passed by 'now' (kd_now_ns()). */
void kd_http_serve(struct kd_http *, const struct pollfd *fds, size_t n,
                   uint64_t now);

/* What it did so far. */
const struct kd_http_stats *kd_http_stats(const struct kd_http *);

/* Closes every connection and the listening socket. */
void kd_http_close(struct kd_http *);

#endif /* http.h */
