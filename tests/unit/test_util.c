/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Unit tests of src/util.c: safe rendering of names chosen by the target,
 * reading files, and the dynamic string. */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "check.h"
#include "fixtures.h"

static void
check_safe_at(const char *file, int line, const char *s, size_t len,
              size_t max_width, const char *expected, size_t width)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    kd_ds_put_cstr(&ds, "[");
    check_uint(kd_ds_put_safe(&ds, s, len, max_width), width,
               "kd_ds_put_safe()'s width", file, line);
    kd_ds_put_cstr(&ds, "]");
    check_str(kd_ds_cstr(&ds), expected, "kd_ds_put_safe()", file, line);
    kd_ds_destroy(&ds);
}

/* The literal 'S' rendered whole, and cut to 'MAX' columns. */
#define CHECK_SAFE(S, EXPECTED, WIDTH) \
    check_safe_at(__FILE__, __LINE__, (S), sizeof (S) - 1, SIZE_MAX, \
                  (EXPECTED), (WIDTH))
#define CHECK_SAFE_CUT(S, MAX, EXPECTED, WIDTH) \
    check_safe_at(__FILE__, __LINE__, (S), sizeof (S) - 1, (MAX), \
                  (EXPECTED), (WIDTH))

/* kd_ds_put_safe(): what a thread, a USDT probe or a symbol may be named
 * is shown without letting it reach the terminal as it is. */
static void
test_put_safe(void)
{
    char *s;

    CHECK_SAFE("", "[]", 0);
    CHECK_SAFE("handler1", "[handler1]", 8);
    CHECK_SAFE(" !~", "[ !~]", 3);

    /* Colour, then a window title set with OSC ... BEL. */
    CHECK_SAFE("\x1b[31mRED\x1b]0;x\a", "[\\x1b[31mRED\\x1b]0;x\\x07]", 23);
    /* Newline and tab in C notation, and so a backslash. */
    CHECK_SAFE("a\nb\tc", "[a\\nb\\tc]", 7);
    CHECK_SAFE("back\\slash", "[back\\\\slash]", 11);
    CHECK_SAFE("\\x1b", "[\\\\x1b]", 5);
    /* The other control characters, DEL, and a NUL within 'len'. */
    CHECK_SAFE("\x01\r\x1f", "[\\x01\\x0d\\x1f]", 12);
    CHECK_SAFE("del\x7f", "[del\\x7f]", 7);
    CHECK_SAFE("a\0b", "[a\\x00b]", 6);

    /* C1 controls in UTF-8 (U+0080 to U+009F), both bytes escaped: NEL,
     * CSI, the first and the last; U+00A0 is not one. */
    CHECK_SAFE("a\xc2\x85" "b", "[a\\xc2\\x85b]", 10);
    CHECK_SAFE("\xc2\x9b" "2J", "[\\xc2\\x9b2J]", 10);
    CHECK_SAFE("\xc2\x80\xc2\x9f", "[\\xc2\\x80\\xc2\\x9f]", 16);
    CHECK_SAFE("\xc2\xa0", "[\xc2\xa0]", 1);
    /* A lone C1 byte (8-bit CSI) is not UTF-8 anyway. */
    CHECK_SAFE("\x9b" "31m", "[\\x9b31m]", 7);

    /* Not UTF-8: overlong '/', a surrogate, a truncated sequence, above
     * U+10FFFF, a byte that never starts one, stray continuation. */
    CHECK_SAFE("\xc0\xaf", "[\\xc0\\xaf]", 8);
    CHECK_SAFE("\xed\xa0\x80", "[\\xed\\xa0\\x80]", 12);
    CHECK_SAFE("\xe6\x97" "a", "[\\xe6\\x97a]", 9);
    CHECK_SAFE("\xf4\x90\x80\x80", "[\\xf4\\x90\\x80\\x80]", 16);
    CHECK_SAFE("\xf5\x80", "[\\xf5\\x80]", 8);
    CHECK_SAFE("\xff\xfe", "[\\xff\\xfe]", 8);
    CHECK_SAFE("a\x80" "b", "[a\\x80b]", 6);
    /* A sequence cut by 'len' is truncated too. */
    check_safe_at(__FILE__, __LINE__, "\xc3\xa9", 1, SIZE_MAX, "[\\xc3]",
                  4);

    /* Valid UTF-8 as it is, one column a character: "é", "日本", "😀",
     * U+10FFFF, U+FFFD. */
    CHECK_SAFE("h\xc3\xa9llo", "[h\xc3\xa9llo]", 5);
    CHECK_SAFE("\xe6\x97\xa5\xe6\x9c\xac", "[\xe6\x97\xa5\xe6\x9c\xac]", 2);
    CHECK_SAFE("\xf0\x9f\x98\x80", "[\xf0\x9f\x98\x80]", 1);
    CHECK_SAFE("\xf4\x8f\xbf\xbf", "[\xf4\x8f\xbf\xbf]", 1);
    CHECK_SAFE("\xef\xbf\xbd", "[\xef\xbf\xbd]", 1);

    /* Cut to a width: never within an escape or a character. */
    CHECK_SAFE_CUT("abc\x1b" "def", 5, "[abc]", 3);
    CHECK_SAFE_CUT("abc\x1b" "def", 7, "[abc\\x1b]", 7);
    CHECK_SAFE_CUT("abc\x1b" "def", 8, "[abc\\x1bd]", 8);
    CHECK_SAFE_CUT("a\\b", 2, "[a]", 1);
    CHECK_SAFE_CUT("ab", 0, "[]", 0);
    CHECK_SAFE_CUT("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", 2,
                   "[\xe6\x97\xa5\xe6\x9c\xac]", 2);

    s = kd_xstrdup_safe("x\ny\x1b");
    CHECK_STR(s, "x\\ny\\x1b");
    free(s);
}

/* kd_read_file_line(): the first line, without its newline, of at most
 * 4,095 bytes, however read(2) splits the file; kd_read_file_text(): all
 * of it but one final newline. */
static void
test_read_file_line(void)
{
    char *root = make_proc_root();
    char big[5000], *path, *line, *text;

    memset(big, 'x', sizeof big);
    WRITE_LIT(root, "two", "first\nsecond\n");
    WRITE_LIT(root, "bare", "no newline");
    WRITE_LIT(root, "empty", "");
    write_file(root, "big", big, sizeof big);

    static const struct {
        const char *file;
        const char *line;
        const char *text;
    } cases[] = {
        { "two", "first", "first\nsecond" },
        { "bare", "no newline", "no newline" },
        { "empty", "", "" },
    };
    for (size_t i = 0; i < KD_ARRAY_SIZE(cases); i++) {
        path = kd_xasprintf("%s/%s", root, cases[i].file);
        CHECK_INT(kd_read_file_line(path, &line), 0);
        CHECK_STR(line, cases[i].line);
        CHECK_INT(kd_read_file_text(path, &text), 0);
        CHECK_STR(text, cases[i].text);
        free(line);
        free(text);
        free(path);
    }

    path = kd_xasprintf("%s/big", root);
    CHECK_INT(kd_read_file_line(path, &line), 0);
    CHECK_UINT(strlen(line), 4095);
    CHECK_INT(kd_read_file_text(path, &text), 0);
    CHECK_UINT(strlen(text), 4095);
    free(line);
    free(text);
    free(path);

    path = kd_xasprintf("%s/missing", root);
    CHECK_INT(kd_read_file_line(path, &line), ENOENT);
    CHECK(line == NULL);
    CHECK_INT(kd_read_file_text(path, &text), ENOENT);
    CHECK(text == NULL);
    free(path);

    remove_tree(root);
    free(root);
}

/* kd_read_file_buf(): at most 'size' - 1 bytes, NUL bytes and all (a
 * /proc/PID/cmdline), NUL-terminated, and its length; an empty buffer when
 * the file cannot be read. */
static void
test_read_file_buf(void)
{
    char *root = make_proc_root();
    char buf[8], *path;
    size_t n;

    write_file(root, "cmdline", "a\0bc\0def\0", 10);
    path = kd_xasprintf("%s/cmdline", root);
    CHECK_INT(kd_read_file_buf(path, false, buf, sizeof buf, &n), 0);
    CHECK_UINT(n, 7);
    CHECK(!memcmp(buf, "a\0bc\0de", 8));
    CHECK_INT(kd_read_file_buf(path, false, buf, 1, &n), 0);
    CHECK_UINT(n, 0);
    CHECK_STR(buf, "");
    free(path);

    path = kd_xasprintf("%s/missing", root);
    memcpy(buf, "junk", 5);
    CHECK_INT(kd_read_file_buf(path, false, buf, sizeof buf, &n), ENOENT);
    CHECK_UINT(n, 0);
    CHECK_STR(buf, "");
    free(path);

    remove_tree(root);
    free(root);
}

/* kd_ds_put_format() formats in place when the text fits and grows the
 * string when it does not, at every length around the boundary. */
static void
test_ds_put_format(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    char expected[70000], piece[300];
    size_t len = 0;

    for (int i = 0; i < 400; i++) {
        int n = i % 257;

        memset(piece, 'a' + i % 26, n);
        piece[n] = '\0';
        kd_ds_put_format(&ds, "%d:%s;", i, piece);
        len += snprintf(expected + len, sizeof expected - len, "%d:%s;", i,
                        piece);
        if (ds.length != len || memcmp(ds.string, expected, len)
            || ds.string[len]) {
            break;
        }
    }
    CHECK_UINT(ds.length, len);
    CHECK_STR(kd_ds_cstr(&ds), expected);
    kd_ds_destroy(&ds);
}

/* A fixed-size field: a full one has no NUL, a shorter one stops at its
 * first NUL, whatever follows. */
static void
test_fixed_cstr(void)
{
    const char full[16] = { 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h',
                            'i', 'j', 'k', 'l', 'm', 'n', 'o', 'p' };
    const char shorter[16] = "pmd-c03/id:9\0xy";
    char buf[17];

    memset(buf, 'z', sizeof buf);
    CHECK(kd_fixed_cstr(buf, full, sizeof full) == buf);
    CHECK_STR(buf, "abcdefghijklmnop");
    CHECK_STR(kd_fixed_cstr(buf, shorter, sizeof shorter), "pmd-c03/id:9");
    CHECK_STR(kd_fixed_cstr(buf, "", 16), "");
    CHECK_STR(kd_fixed_cstr(buf, full, 3), "abc");
}

/* CPU lists as the kernel writes them (cpu/online, cpu/possible). */
static void
test_util_cpu_list(void)
{
    bool cpus[16];

    CHECK_INT(kd_parse_cpu_list("0", NULL, 0), 1);
    CHECK_INT(kd_parse_cpu_list("0-3,8-11\n", cpus, 16), 12);
    CHECK(cpus[0] && cpus[3] && !cpus[4] && !cpus[7] && cpus[8]
          && cpus[11] && !cpus[12]);
    CHECK_INT(kd_parse_cpu_list("0,2", cpus, 2), 3);
    CHECK(cpus[0] && !cpus[1]);
    CHECK_INT(kd_parse_cpu_list("", NULL, 0), -1);
    CHECK_INT(kd_parse_cpu_list("3-1", NULL, 0), -1);
    CHECK_INT(kd_parse_cpu_list("0-x", NULL, 0), -1);
    CHECK_INT(kd_parse_cpu_list("0;1", NULL, 0), -1);
    CHECK_INT(kd_parse_cpu_list("2000000", NULL, 0), -1);
}

/* Edit distances, as worked out by hand. */
static void
test_edit_distance(void)
{
#define DIST(A, B) kd_edit_distance((A), strlen(A), (B), strlen(B))
    CHECK_UINT(DIST("", ""), 0);
    CHECK_UINT(DIST("abc", ""), 3);
    CHECK_UINT(DIST("", "abc"), 3);
    CHECK_UINT(DIST("json", "json"), 0);
    CHECK_UINT(DIST("jsn", "json"), 1);
    CHECK_UINT(DIST("sampel-time", "sample-time"), 1);
    CHECK_UINT(DIST("hlep", "help"), 1);
    CHECK_UINT(DIST("kitten", "sitting"), 3);
    CHECK_UINT(DIST("ca", "abc"), 3);
    CHECK_UINT(DIST("bogus", "debug"), 4);
#undef DIST
    CHECK_UINT(kd_edit_distance("a", 1, "b", KD_EDIT_DISTANCE_MAX + 1),
               SIZE_MAX);
}

static const struct test tests[] = {
    TEST(test_edit_distance),
    TEST(test_util_cpu_list),
    TEST(test_fixed_cstr),
    TEST(test_read_file_line),
    TEST(test_read_file_buf),
    TEST(test_ds_put_format),
    TEST(test_put_safe),
};

CHECK_SUITE(util, tests)
