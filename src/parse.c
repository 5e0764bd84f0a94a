/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Strict parsing of numbers and durations. */

#include "parse.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

int
kd_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
    const char *p = s;
    uint64_t value = 0;

    if (*p == '+') {
        p++;
    } else if (*p == '-' && isdigit((unsigned char) p[1])) {
        /* A negative number: a number, but out of any unsigned range,
         * unless it is zero. */
        bool zero = true;

        for (p++; isdigit((unsigned char) *p); p++) {
            zero = zero && *p == '0';
        }
        if (*p) {
            return EINVAL;
        }
        if (!zero || min > 0) {
            return ERANGE;
        }
        *out = 0;
        return 0;
    }
    if (!isdigit((unsigned char) *p)) {
        return EINVAL;
    }
    for (; isdigit((unsigned char) *p); p++) {
        unsigned int digit = *p - '0';

        if (value > (UINT64_MAX - digit) / 10) {
            /* Still check that the rest is a number. */
            while (isdigit((unsigned char) *p)) {
                p++;
            }
            return *p ? EINVAL : ERANGE;
        }
        value = value * 10 + digit;
    }
    if (*p) {
        return EINVAL;
    }
    if (value < min || value > max) {
        return ERANGE;
    }
    *out = value;
    return 0;
}

int
kd_parse_seconds(const char *s, double min, double max, double *out)
{
    char *end;
    double value;

    /* strtod() also takes hexadecimal, "inf" and "nan": accept plain
     * decimal notation only. */
    for (const char *p = s; *p; p++) {
        if (!isdigit((unsigned char) *p) && !strchr("+-.eE", *p)) {
            return EINVAL;
        }
    }
    errno = 0;
    value = strtod(s, &end);
    if (end == s || *end) {
        return EINVAL;
    }
    /* strtod() reports an underflow (1e-400) as ERANGE: that is 0. */
    if (errno == ERANGE && fabs(value) <= DBL_MIN) {
        value = 0;
    } else if (errno == ERANGE) {
        return ERANGE;
    }
    if (!isfinite(value) || value < min || value > max) {
        return ERANGE;
    }
    *out = value;
    return 0;
}

/* The units of a duration, as powers of ten of a nanosecond. */
static const struct {
    const char *name;
    int exp10;
} kd_duration_units[] = {
    { "ns", 0 }, { "us", 3 }, { "ms", 6 }, { "s", 9 },
};

bool
kd_parse_has_unit(const char *s)
{
    size_t len = strlen(s);

    return len && s[len - 1] == 's';
}

/* The number of a duration, as scanned: its digits (the fraction's
 * included, the point skipped) from 'digits' to 'end', and the power of
 * ten they are to be multiplied by, in nanoseconds. */
struct kd_duration_number {
    bool negative;
    const char *digits, *end;
    long exp10;
};

/* Scans 's' into 'n'.  Returns 0 or EINVAL. */
static int
kd_duration_scan(const char *s, struct kd_duration_number *n)
{
    const char *p = s;
    size_t n_int, n_frac = 0;
    long exp = 0;

    n->negative = *p == '-';
    p += *p == '-' || *p == '+';
    n->digits = p;
    n_int = strspn(p, "0123456789");
    p += n_int;
    if (*p == '.') {
        n_frac = strspn(p + 1, "0123456789");
        p += 1 + n_frac;
    }
    n->end = p;
    if (!n_int && !n_frac) {
        return EINVAL;
    }
    if (*p == 'e' || *p == 'E') {
        bool minus = p[1] == '-';

        p += 1 + (p[1] == '-' || p[1] == '+');
        if (!isdigit((unsigned char) *p)) {
            return EINVAL;
        }
        for (; isdigit((unsigned char) *p); p++) {
            /* Far beyond any duration either way: stop growing. */
            exp = exp < 100000 ? exp * 10 + (*p - '0') : exp;
        }
        exp = minus ? -exp : exp;
    }
    n->exp10 = exp - (long) n_frac;
    if (*p) {
        size_t i;

        for (i = 0; i < KD_ARRAY_SIZE(kd_duration_units); i++) {
            if (!strcmp(p, kd_duration_units[i].name)) {
                n->exp10 += kd_duration_units[i].exp10;
                break;
            }
        }
        if (i == KD_ARRAY_SIZE(kd_duration_units)) {
            return EINVAL;
        }
    }
    return 0;
}

int
kd_parse_duration_ns(const char *s, uint64_t max, uint64_t *out)
{
    struct kd_duration_number n;
    const char *first = NULL, *last = NULL;
    uint64_t value = 0;
    long exp10;
    int error = kd_duration_scan(s, &n);

    if (error) {
        return error;
    }
    /* The significant digits, from 'first' to 'last', leading and
     * trailing zeros left out (those trailing count in the exponent). */
    exp10 = n.exp10;
    for (const char *p = n.digits; p < n.end; p++) {
        if (*p != '.' && *p != '0') {
            first = first ? first : p;
            last = p;
        }
    }
    if (!first) {
        *out = 0;
        return 0;
    }
    if (n.negative) {
        return ERANGE;
    }
    for (const char *p = last + 1; p < n.end; p++) {
        exp10 += *p != '.';
    }
    if (exp10 < 0) {
        return EDOM;
    }
    for (const char *p = first; p <= last; p++) {
        if (*p == '.') {
            continue;
        } else if (value > (UINT64_MAX - (*p - '0')) / 10) {
            return ERANGE;
        }
        value = value * 10 + (*p - '0');
    }
    for (; exp10 > 0; exp10--) {
        if (value > UINT64_MAX / 10) {
            return ERANGE;
        }
        value *= 10;
    }
    if (value > max) {
        return ERANGE;
    }
    *out = value;
    return 0;
}

int
kd_parse_seconds_or_unit(const char *arg, double min, uint32_t max,
                         double *out)
{
    uint64_t ns;
    int error;

    if (!kd_parse_has_unit(arg)) {
        return kd_parse_seconds(arg, min, max, out);
    }
    error = kd_parse_duration_ns(arg, max * UINT64_C(1000000000), &ns);
    if (error) {
        return error;
    } else if (ns / 1e9 < min) {
        return ERANGE;
    }
    *out = ns / 1e9;
    return 0;
}
