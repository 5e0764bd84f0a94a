/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Allocation, dynamic strings, files, safe rendering of untrusted text. */

#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void
kd_out_of_memory(void)
{
    fputs("ERROR: Out of memory!\n", stderr);
    abort();
}

void *
kd_xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);

    if (!p) {
        kd_out_of_memory();
    }
    return p;
}

void *
kd_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);

    if (!p) {
        kd_out_of_memory();
    }
    return p;
}

void *
kd_xrealloc(void *p, size_t size)
{
    p = realloc(p, size ? size : 1);
    if (!p) {
        kd_out_of_memory();
    }
    return p;
}

void *
kd_xreallocarray(void *p, size_t n, size_t size)
{
    if (size && n > (size_t) -1 / size) {
        kd_out_of_memory();
    }
    return kd_xrealloc(p, n * size);
}

char *
kd_xstrdup(const char *s)
{
    size_t len = strlen(s) + 1;

    return memcpy(kd_xmalloc(len), s, len);
}

char *
kd_fixed_cstr(char *buf, const char *field, size_t size)
{
    size_t len = strnlen(field, size);

    memcpy(buf, field, len);
    buf[len] = '\0';
    return buf;
}

char *
kd_xvasprintf(const char *format, va_list args)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    va_list args2;
    int needed;

    va_copy(args2, args);
    needed = vsnprintf(NULL, 0, format, args2);
    va_end(args2);
    if (needed < 0) {
        kd_out_of_memory();
    }
    ds.string = kd_xmalloc(needed + 1);
    vsnprintf(ds.string, needed + 1, format, args);
    return ds.string;
}

char *
kd_xasprintf(const char *format, ...)
{
    va_list args;
    char *s;

    va_start(args, format);
    s = kd_xvasprintf(format, args);
    va_end(args);
    return s;
}

void
kd_ds_init(struct kd_ds *ds)
{
    ds->string = NULL;
    ds->length = 0;
    ds->allocated = 0;
}

static void
kd_ds_reserve(struct kd_ds *ds, size_t extra)
{
    size_t needed = ds->length + extra + 1;

    if (needed > ds->allocated) {
        size_t allocated = ds->allocated ? ds->allocated * 2 : 64;

        while (allocated < needed) {
            allocated *= 2;
        }
        ds->string = kd_xrealloc(ds->string, allocated);
        ds->allocated = allocated;
    }
}

void
kd_ds_put_buffer(struct kd_ds *ds, const char *buf, size_t n)
{
    kd_ds_reserve(ds, n);
    memcpy(ds->string + ds->length, buf, n);
    ds->length += n;
    ds->string[ds->length] = '\0';
}

void
kd_ds_put_cstr(struct kd_ds *ds, const char *s)
{
    kd_ds_put_buffer(ds, s, strlen(s));
}

void
kd_ds_put_char(struct kd_ds *ds, char c)
{
    kd_ds_put_buffer(ds, &c, 1);
}

void
kd_ds_put_char_multiple(struct kd_ds *ds, char c, size_t n)
{
    kd_ds_reserve(ds, n);
    memset(ds->string + ds->length, c, n);
    ds->length += n;
    ds->string[ds->length] = '\0';
}

void
kd_ds_put_format(struct kd_ds *ds, const char *format, ...)
{
    size_t available = ds->allocated - ds->length;
    va_list args;
    int needed;

    /* Most lines fit in the space already there: format once. */
    va_start(args, format);
    needed = vsnprintf(ds->string ? ds->string + ds->length : NULL,
                       available, format, args);
    va_end(args);
    if (needed < 0) {
        if (ds->string) {
            ds->string[ds->length] = '\0';
        }
        return;
    }
    if ((size_t) needed >= available) {
        kd_ds_reserve(ds, needed);
        va_start(args, format);
        vsnprintf(ds->string + ds->length, needed + 1, format, args);
        va_end(args);
    }
    ds->length += needed;
}

const char *
kd_ds_cstr(struct kd_ds *ds)
{
    if (!ds->string) {
        kd_ds_reserve(ds, 0);
        ds->string[0] = '\0';
    }
    return ds->string;
}

char *
kd_ds_steal_cstr(struct kd_ds *ds)
{
    char *s;

    kd_ds_cstr(ds);
    s = ds->string;
    kd_ds_init(ds);
    return s;
}

void
kd_ds_flush(struct kd_ds *ds, FILE *stream, size_t threshold)
{
    if (ds->length && ds->length >= threshold) {
        fwrite(ds->string, 1, ds->length, stream);
        ds->length = 0;
        ds->string[0] = '\0';
    }
}

void
kd_ds_sink_put(struct kd_ds *ds, const struct kd_ds_sink *sink)
{
    if (sink && ds->length >= KD_DS_SINK_CHUNK) {
        sink->write(ds, sink->aux);
    }
}

void
kd_ds_destroy(struct kd_ds *ds)
{
    free(ds->string);
    kd_ds_init(ds);
}

int
kd_read_file_buf(const char *path, bool first_line, char *buf, size_t size,
                 size_t *lenp)
{
    size_t n = 0;
    int error = 0;
    int fd;

    /* Plain read(2), no stdio: this runs once per reported thread. */
    buf[0] = '\0';
    *lenp = 0;
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return errno;
    }
    while (n < size - 1) {
        ssize_t r = read(fd, buf + n, size - 1 - n);

        if (r < 0) {
            if (errno == EINTR) {
                continue;
            }
            error = errno;
            n = 0;
            break;
        } else if (!r) {
            break;
        }
        n += r;
        if (first_line && memchr(buf + n - r, '\n', r)) {
            break;
        }
    }
    close(fd);
    buf[n] = '\0';
    *lenp = n;
    return error;
}

/* Reads the start of a small file, at most 4,095 bytes, into a new string
 * '*text': its first line without its newline if 'first_line', else all
 * of it but one final newline.  Returns 0 or a positive errno. */
static int
kd_read_small_file(const char *path, bool first_line, char **text)
{
    char buf[4096];
    size_t n;
    int error;

    *text = NULL;
    error = kd_read_file_buf(path, first_line, buf, sizeof buf, &n);
    if (error) {
        return error;
    }
    if (first_line) {
        buf[strcspn(buf, "\n")] = '\0';
    } else if (n && buf[n - 1] == '\n') {
        buf[n - 1] = '\0';
    }
    *text = kd_xstrdup(buf);
    return 0;
}

int
kd_read_file_line(const char *path, char **line)
{
    return kd_read_small_file(path, true, line);
}

int
kd_read_file_text(const char *path, char **text)
{
    return kd_read_small_file(path, false, text);
}

bool
kd_path_exists(const char *path)
{
    struct stat st;

    return !stat(path, &st);
}

size_t
kd_utf8_len(const char *s_, size_t len)
{
    const unsigned char *s = (const unsigned char *) s_;
    unsigned int cp;
    size_t n;

    if (!len) {
        return 0;
    } else if (s[0] < 0x80) {
        return 1;
    } else if ((s[0] & 0xe0) == 0xc0) {
        n = 2;
        cp = s[0] & 0x1f;
    } else if ((s[0] & 0xf0) == 0xe0) {
        n = 3;
        cp = s[0] & 0x0f;
    } else if ((s[0] & 0xf8) == 0xf0) {
        n = 4;
        cp = s[0] & 0x07;
    } else {
        return 0;
    }
    if (n > len) {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) {
            return 0;
        }
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800)
        || (n == 4 && cp < 0x10000) || cp > 0x10ffff
        || (cp >= 0xd800 && cp <= 0xdfff)) {
        return 0;
    }
    return n;
}

/* The number of bytes of the character at the start of 's' (at most 'len'
 * bytes) that kd_ds_put_safe() shows as it is, or 0 when it escapes the
 * first byte. */
static size_t
kd_safe_char_len(const char *s, size_t len)
{
    unsigned char c = s[0];
    size_t n;

    if (c < 0x80) {
        return c >= 0x20 && c < 0x7f && c != '\\';
    }
    n = kd_utf8_len(s, len);

    /* The C1 controls, U+0080 to U+009F, are C2 80 to C2 9F. */
    return n == 2 && c == 0xc2 && (unsigned char) s[1] < 0xa0 ? 0 : n;
}

size_t
kd_ds_put_safe(struct kd_ds *ds, const char *s, size_t len,
               size_t max_width)
{
    static const char hex[] = "0123456789abcdef";
    size_t width = 0, start = 0, i = 0;

    /* Characters shown as they are accumulate in s[start:i], appended in
     * one piece before each escape and at the end. */
    while (i < len) {
        unsigned char c = s[i];
        size_t n = kd_safe_char_len(s + i, len - i);
        char esc[4] = { '\\', c, 0, 0 };
        size_t esc_len = 2;

        if (n) {
            if (width == max_width) {
                break;
            }
            i += n;
            width++;
            continue;
        }
        if (c == '\n' || c == '\t') {
            esc[1] = c == '\n' ? 'n' : 't';
        } else if (c != '\\') {
            esc[1] = 'x';
            esc[2] = hex[c >> 4];
            esc[3] = hex[c & 0xf];
            esc_len = 4;
        }
        if (esc_len > max_width - width) {
            break;
        }
        kd_ds_put_buffer(ds, s + start, i - start);
        kd_ds_put_buffer(ds, esc, esc_len);
        width += esc_len;
        start = ++i;
    }
    kd_ds_put_buffer(ds, s + start, i - start);
    return width;
}

void
kd_ds_put_safe_cstr(struct kd_ds *ds, const char *s)
{
    kd_ds_put_safe(ds, s, strlen(s), SIZE_MAX);
}

char *
kd_xstrdup_safe(const char *s)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    kd_ds_put_safe_cstr(&ds, s);
    return kd_ds_steal_cstr(&ds);
}

const char *
kd_utc_time(const struct timespec *ts, char buf[32])
{
    char date[24];
    struct tm utc;

    gmtime_r(&ts->tv_sec, &utc);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &utc);
    snprintf(buf, 32, "%.19s.%06ldZ", date, ts->tv_nsec / 1000 % 1000000);
    return buf;
}

uint64_t
kd_clock_ns(clockid_t clock)
{
    struct timespec ts;

    clock_gettime(clock, &ts);
    return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

uint64_t
kd_now_ns(void)
{
    return kd_clock_ns(CLOCK_MONOTONIC);
}

int
kd_parse_cpu_list(const char *list, bool *cpus, size_t n)
{
    int top = 0;

    if (cpus) {
        memset(cpus, 0, n * sizeof *cpus);
    }
    for (const char *p = list; *p && *p != '\n';) {
        unsigned int lo, hi;
        int len;

        if (sscanf(p, "%u-%u%n", &lo, &hi, &len) == 2 && lo <= hi) {
            /* A range. */
        } else if (sscanf(p, "%u%n", &lo, &len) == 1) {
            hi = lo;
        } else {
            return -1;
        }
        if (hi >= 1u << 20) {
            return -1;
        }
        for (unsigned int cpu = lo; cpus && cpu <= hi && cpu < n; cpu++) {
            cpus[cpu] = true;
        }
        if ((int) hi + 1 > top) {
            top = hi + 1;
        }
        p += len;
        if (*p == ',') {
            p++;
        } else if (*p && *p != '\n') {
            return -1;
        }
    }
    return top ? top : -1;
}

/* The end of the bracket expression that starts at 'p' ('['), or NULL
 * when it does not end. */
static const char *
kd_regex_bracket_end(const char *p)
{
    p++;
    if (*p == '^') {
        p++;
    }
    if (*p == ']') {
        p++;
    }
    for (; *p && *p != ']'; p++) {
        if (*p == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
            char kind = p[1];

            for (p += 2; *p && !(*p == kind && p[1] == ']'); p++) {
                continue;
            }
            if (!*p) {
                return NULL;
            }
            p++;
        }
    }
    return *p ? p : NULL;
}

/* Whether ERE 're' has a repetition operator (*, +, ?, {...}) right after
 * another one.  POSIX leaves that undefined; glibc takes it, and compiles
 * a run of them ("a++++...", 150 characters) into gigabytes of memory. */
bool
kd_regex_repeats_repetition(const char *re)
{
    bool after = false;

    for (const char *p = re; *p; p++) {
        bool rep = false;

        if (*p == '\\') {
            p += p[1] != '\0';
        } else if (*p == '[') {
            const char *end = kd_regex_bracket_end(p);

            if (!end) {
                return false;       /* regcomp() says what is wrong. */
            }
            p = end;
        } else if (*p == '{') {
            const char *end = strchr(p, '}');

            rep = true;
            p = end ? end : p;
        } else if (*p == '*' || *p == '+' || *p == '?') {
            rep = true;
        }
        if (rep && after) {
            return true;
        }
        after = rep;
    }
    return false;
}

size_t
kd_edit_distance(const char *a, size_t a_len, const char *b, size_t b_len)
{
    size_t d[KD_EDIT_DISTANCE_MAX + 1][KD_EDIT_DISTANCE_MAX + 1];

    if (a_len > KD_EDIT_DISTANCE_MAX || b_len > KD_EDIT_DISTANCE_MAX) {
        return SIZE_MAX;
    }
    for (size_t i = 0; i <= a_len; i++) {
        for (size_t j = 0; j <= b_len; j++) {
            size_t best;

            if (!i || !j) {
                d[i][j] = i + j;
                continue;
            }
            best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            best = KD_MIN(best, d[i - 1][j] + 1);
            best = KD_MIN(best, d[i][j - 1] + 1);
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2]
                && a[i - 2] == b[j - 1]) {
                best = KD_MIN(best, d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    return d[a_len][b_len];
}
