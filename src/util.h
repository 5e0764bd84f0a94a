/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_UTIL_H
#define KD_UTIL_H 1

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#define KD_ARRAY_SIZE(A) (sizeof (A) / sizeof (A)[0])
#define KD_MIN(A, B) ((A) < (B) ? (A) : (B))
#define KD_MAX(A, B) ((A) > (B) ? (A) : (B))

#if defined(__GNUC__)
#define KD_PRINTF_FORMAT(FMT, ARG1) \
    __attribute__((__format__(__printf__, FMT, ARG1)))
/* A parameter that a function of a common type may leave unused. */
#define KD_UNUSED __attribute__((__unused__))
#else
#define KD_PRINTF_FORMAT(FMT, ARG1)
#define KD_UNUSED
#endif

/* Allocation that aborts with a message instead of returning NULL. */
void *kd_xmalloc(size_t size);
void *kd_xcalloc(size_t n, size_t size);
void *kd_xrealloc(void *p, size_t size);
void *kd_xreallocarray(void *p, size_t n, size_t size);
char *kd_xstrdup(const char *s);

/* The string in fixed-size field 'field' of 'size' bytes, NUL-terminated
 * only when shorter (as a task's comm), copied with a NUL into 'buf' of
 * 'size' + 1 bytes.  Returns 'buf'. */
char *kd_fixed_cstr(char *buf, const char *field, size_t size);
char *kd_xasprintf(const char *format, ...) KD_PRINTF_FORMAT(1, 2);
char *kd_xvasprintf(const char *format, va_list args)
    KD_PRINTF_FORMAT(1, 0);

/* A growable, always NUL-terminated string, after OVS's "struct ds". */
struct kd_ds {
    char *string;
    size_t length;
    size_t allocated;
};

#define KD_DS_EMPTY_INITIALIZER { NULL, 0, 0 }

void kd_ds_init(struct kd_ds *);
void kd_ds_put_buffer(struct kd_ds *, const char *, size_t);
void kd_ds_put_cstr(struct kd_ds *, const char *);
void kd_ds_put_char(struct kd_ds *, char);
void kd_ds_put_char_multiple(struct kd_ds *, char, size_t n);
void kd_ds_put_format(struct kd_ds *, const char *, ...)
    KD_PRINTF_FORMAT(2, 3);
const char *kd_ds_cstr(struct kd_ds *);
char *kd_ds_steal_cstr(struct kd_ds *);
void kd_ds_destroy(struct kd_ds *);

/* Where a text too long to hold whole goes as it grows: 'write' takes
 * what a kd_ds holds so far and empties it (writes it to a file, say).
 * The renderers, which write to no file themselves, hand their text to
 * one as they go (kd_ds_sink_put()), so that a report of many events
 * needs no more memory than a part of it. */
struct kd_ds_sink {
    void (*write)(struct kd_ds *, void *aux);
    void *aux;
};

/* How much a kd_ds holds before kd_ds_sink_put() hands it over. */
#define KD_DS_SINK_CHUNK (1 << 16)

/* Hands what 'ds' holds to 'sink' once that is KD_DS_SINK_CHUNK bytes or
 * more; nothing when 'sink' is NULL (then 'ds' holds the whole text). */
void kd_ds_sink_put(struct kd_ds *, const struct kd_ds_sink *sink);

/* Writes 'ds' to 'stream' and empties it, once it holds 'threshold' bytes
 * or more (0: always). */
void kd_ds_flush(struct kd_ds *, FILE *stream, size_t threshold);

/* Reads the start of file 'path', at most 'size' - 1 bytes ('size' > 0),
 * into 'buf', NUL-terminated, and its length into '*lenp'; with
 * 'first_line', it may stop reading once it has a newline.  On error,
 * 'buf' is empty.  Returns 0 or a positive errno. */
int kd_read_file_buf(const char *path, bool first_line, char *buf,
                     size_t size, size_t *lenp);

/* Reads the first line of a small file (e.g. under /proc), at most 4,095
 * bytes, into a new string without its newline.  Returns 0 or a positive
 * errno. */
int kd_read_file_line(const char *path, char **line);

/* Parses a CPU list as the kernel writes it ("0-3,8-11", "0"): returns 1 +
 * the highest CPU listed, or -1 when 'list' is not one; marks in 'cpus'
 * (of 'n' entries, when not NULL) those listed. */
int kd_parse_cpu_list(const char *list, bool *cpus, size_t n);

/* The same, but all of the file (at most 4,095 bytes) but one final
 * newline: a thread's name, in /proc/PID/task/TID/comm, may hold
 * newlines. */
int kd_read_file_text(const char *path, char **text);

/* Whether 'path' exists (stat() succeeds). */
bool kd_path_exists(const char *path);

/* The length of the valid UTF-8 sequence at the start of 's', at most
 * 'len' bytes (1 for an ASCII byte), or 0 when it is not valid: overlong
 * forms, surrogates, code points above U+10FFFF and truncated sequences
 * are not. */
size_t kd_utf8_len(const char *s, size_t len);

/* Text from the traced process.
 *
 * A thread can name itself anything (prctl(PR_SET_NAME)), and a process
 * chooses its USDT names, its symbols and the paths of its files.  The
 * text output shows every such string through kd_ds_put_safe(), so that
 * it can neither drive the reader's terminal (escape sequences) nor break
 * the layout (newlines), yet shows what it holds, unambiguously:
 *
 *   - printable ASCII (0x20 to 0x7e) as it is, but a backslash as "\\";
 *   - a newline as "\n" and a tab as "\t";
 *   - valid UTF-8 characters as they are, but for the C1 controls
 *     (U+0080 to U+009F), which terminals may act on;
 *   - every other byte as "\xHH" (two lowercase hex digits): the other
 *     control characters (0x00 to 0x1f, 0x7f), both bytes of a C1
 *     control, and each byte that is not part of valid UTF-8.
 *
 * Appends the first 'len' bytes of 's' so rendered, as much of it as fits
 * in 'max_width' columns (SIZE_MAX: all of it), never cutting a character
 * or an escape in two.  Returns the number of columns appended, counting
 * each UTF-8 character as one column, as Python (and so the reference)
 * counts them: a terminal gives two to an East Asian wide character, but
 * this is good enough to line up columns of names. */
size_t kd_ds_put_safe(struct kd_ds *, const char *s, size_t len,
                      size_t max_width);

/* All of 's' rendered by kd_ds_put_safe(), appended to a kd_ds or in a
 * new string (for messages that quote such text). */
void kd_ds_put_safe_cstr(struct kd_ds *, const char *s);
char *kd_xstrdup_safe(const char *s);

/* Wall-clock time 'ts' in RFC 3339, in UTC with "Z", to the microsecond
 * (truncated), whatever TZ says: "2026-11-25T07:24:37.595260Z", 27
 * characters.  Returns 'buf'. */
#define KD_UTC_TIME_LEN 27
const char *kd_utc_time(const struct timespec *ts, char buf[32]);

/* Clock 'clock' in ns. */
uint64_t kd_clock_ns(clockid_t clock);

/* CLOCK_MONOTONIC ns, the eBPF side's clock (bpf_ktime_get_ns()). */
uint64_t kd_now_ns(void);

/* The edit distance between 'a' (of 'a_len' bytes) and 'b' (of 'b_len'
 * bytes): insertions, deletions, substitutions and transpositions of two
 * adjacent bytes each count 1 (optimal string alignment).  Either length
 * above KD_EDIT_DISTANCE_MAX gives SIZE_MAX. */
#define KD_EDIT_DISTANCE_MAX 64
size_t kd_edit_distance(const char *a, size_t a_len,
                        const char *b, size_t b_len);

/* Whether POSIX extended regular expression 're' has a repetition
 * operator (*, +, ?, {...}) right after another one.  POSIX leaves that
 * undefined; glibc takes it, and compiles a run of them ("a++++...", 150
 * characters) into gigabytes of memory. */
bool kd_regex_repeats_repetition(const char *re);

#endif /* util.h */
