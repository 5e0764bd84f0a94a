/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Unit tests of src/template.c: "@NAME@" substitution. */

#include <errno.h>
#include <stdlib.h>

#include "template.h"
#include "util.h"
#include "check.h"

static void
test_template_expand(void)
{
    static const struct kd_subst substs[] = {
        { "A", "1" },
        { "B_2", "two" },
        { "C", "@A@" },
        { "AB", "[ab]" },
        { "EMPTY", "" },
    };
    char *out, *error;

    CHECK_INT(kd_template_expand("x=@A@ y=@B_2@ z=@C@ @A@\nend @AB@@A@\n",
                                 substs, KD_ARRAY_SIZE(substs), &out,
                                 &error), 0);
    CHECK_STR(out, "x=1 y=two z=@A@ 1\nend [ab]1\n");
    CHECK(error == NULL);
    free(out);

    /* A value is not re-expanded, even when it forms a placeholder with
     * the text around it. */
    CHECK_INT(kd_template_expand("@C@B_2@", substs, KD_ARRAY_SIZE(substs),
                                 &out, &error), 0);
    CHECK_STR(out, "@A@B_2@");
    free(out);

    CHECK_INT(kd_template_expand("[@EMPTY@]@A@", substs,
                                 KD_ARRAY_SIZE(substs), &out, &error), 0);
    CHECK_STR(out, "[]1");
    free(out);

    CHECK_INT(kd_template_expand("", substs, KD_ARRAY_SIZE(substs), &out,
                                 &error), 0);
    CHECK_STR(out, "");
    free(out);

    /* "@@A@" is a lone '@' then a placeholder. */
    CHECK_INT(kd_template_expand("@@A@", substs, KD_ARRAY_SIZE(substs),
                                 &out, &error), 0);
    CHECK_STR(out, "@1");
    free(out);
}

static void
test_template_untouched(void)
{
    static const char text[] =
        "a @ b @@ c@d e@\n"
        "@lower@ @Mixed@ @A B@ @A\n@ user@example.com\n"
        "@\n@";
    char *out, *error;

    CHECK_INT(kd_template_expand(text, NULL, 0, &out, &error), 0);
    CHECK_STR(out, text);
    CHECK(error == NULL);
    free(out);
}

static void
test_template_errors(void)
{
    static const struct kd_subst substs[] = {
        { "A", "1" },
        { "NULLED", NULL },
    };
    char *out, *error;

    out = (char *) "unchanged";
    CHECK_INT(kd_template_expand("line 1 @A@\nline 2\nline 3 @MISSING@\n",
                                 substs, KD_ARRAY_SIZE(substs), &out,
                                 &error), EINVAL);
    CHECK(out == NULL);
    CHECK_STR(error, "template line 3: placeholder @MISSING@ has no value");
    free(error);

    CHECK_INT(kd_template_expand("@NULLED@", substs, KD_ARRAY_SIZE(substs),
                                 &out, &error), EINVAL);
    CHECK(out == NULL);
    CHECK_STR(error, "template line 1: placeholder @NULLED@ has no value");
    free(error);

    /* Newlines in values do not count as template lines. */
    {
        static const struct kd_subst multi[] = { { "M", "a\nb\nc\n" } };

        CHECK_INT(kd_template_expand("@M@\n@M@ @X@", multi, 1, &out,
                                     &error), EINVAL);
        CHECK_STR(error, "template line 2: placeholder @X@ has no value");
        free(error);
    }

    /* A name that is a prefix of a known one is not known. */
    CHECK_INT(kd_template_expand("@AA@", substs, KD_ARRAY_SIZE(substs),
                                 &out, &error), EINVAL);
    CHECK_STR(error, "template line 1: placeholder @AA@ has no value");
    free(error);
}

static const struct test tests[] = {
    TEST(test_template_expand),
    TEST(test_template_untouched),
    TEST(test_template_errors),
};

CHECK_SUITE(template, tests)
