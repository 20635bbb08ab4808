/* Unit tests: names as well-formed UTF-8 and back (src/core/name_text.c),
 * against Unicode §3.9 Table 3-7 (well-formed byte sequences): each lead
 * byte class at both ends of its second byte's range and one past them,
 * truncated sequences, 5- and 6-byte forms, lone continuation bytes; then
 * every 1- to 3-byte sequence and the 4-byte boundaries against a decoder
 * written from the code points' definition instead of the table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "name_text.h"
#include "utf8_reference.h"

#define R "\xEF\xBF\xBD" /* U+FFFD */

/* The text of the n bytes of name, NUL terminated, in buf. */
static size_t encode(const char *name, size_t n, char *buf, size_t size)
{
    size_t used = 0;
    while (n) {
        char piece[ST_NAME_PIECE_MAX];
        size_t len, took = st_name_piece(name, n, piece, &len);
        assert_true(took >= 1 && took <= n && len >= 1 && len <= ST_NAME_PIECE_MAX);
        assert_true(used + len < size);
        memcpy(buf + used, piece, len);
        used += len;
        name += took;
        n -= took;
    }
    buf[used] = '\0';
    return used;
}

static const struct {
    const char *name; /* NUL terminated: names never hold a NUL */
    const char *text;
} table[] = {
    /* ASCII, 00-7F: itself (the caller quotes what its format needs). */
    {"plain/ascii \x01\x7f", "plain/ascii \x01\x7f"},
    /* Lone continuation bytes, 80-BF. */
    {"\x80", R "80"},
    {"\xbf", R "BF"},
    {"a\x80\xbf" "b", "a" R "80" R "BF" "b"},
    /* C0, C1: overlong two-byte forms; never a lead. */
    {"\xc0\x80", R "C0" R "80"},
    {"\xc1\xbf", R "C1" R "BF"},
    /* C2-DF, then 80-BF. */
    {"\xc2\x80", "\xc2\x80"},
    {"\xdf\xbf", "\xdf\xbf"},
    {"\xc2\x7f", R "C2" "\x7f"},
    {"\xdf\xc0", R "DF" R "C0"},
    {"\xc3", R "C3"},
    /* E0, then A0-BF (80-9F would be overlong). */
    {"\xe0\xa0\x80", "\xe0\xa0\x80"},
    {"\xe0\xbf\xbf", "\xe0\xbf\xbf"},
    {"\xe0\x9f\xbf", R "E0" R "9F" R "BF"},
    {"\xe0\x80\x80", R "E0" R "80" R "80"},
    {"\xe0\xc0\x80", R "E0" R "C0" R "80"},
    /* E1-EC, then 80-BF. */
    {"\xe1\x80\x80", "\xe1\x80\x80"},
    {"\xec\xbf\xbf", "\xec\xbf\xbf"},
    {"\xe1\x7f\x80", R "E1" "\x7f" R "80"},
    {"\xec\xc0\xbf", R "EC" R "C0" R "BF"},
    /* ED, then 80-9F (A0-BF would be the surrogates D800-DFFF). */
    {"\xed\x80\x80", "\xed\x80\x80"},
    {"\xed\x9f\xbf", "\xed\x9f\xbf"},
    {"a\xed\xa0\x80", "a" R "ED" R "A0" R "80"},
    {"\xed\xbf\xbf", R "ED" R "BF" R "BF"},
    {"\xed\xa0\xbd\xed\xb2\xa9", R "ED" R "A0" R "BD" R "ED" R "B2" R "A9"}, /* CESU-8 pair */
    /* EE-EF, then 80-BF; U+FFFD itself is doubled. */
    {"\xee\x80\x80", "\xee\x80\x80"},
    {"\xef\xbf\xbf", "\xef\xbf\xbf"},
    {"\xef\xbf\xbd", R R},
    {"\xef\xbf\xbd" "A0", R R "A0"},
    {"\xef\xbf\xbd\xff", R R R "FF"},
    {"\xee\x7f\x80", R "EE" "\x7f" R "80"},
    /* The third byte of three, 80-BF. */
    {"\xe1\x80\x7f", R "E1" R "80" "\x7f"},
    {"\xe1\x80\xc0", R "E1" R "80" R "C0"},
    /* F0, then 90-BF (80-8F would be overlong). */
    {"\xf0\x90\x80\x80", "\xf0\x90\x80\x80"},
    {"\xf0\xbf\xbf\xbf", "\xf0\xbf\xbf\xbf"},
    {"\xf0\x8f\xbf\xbf", R "F0" R "8F" R "BF" R "BF"},
    {"\xf0\x80\x80\x80", R "F0" R "80" R "80" R "80"},
    {"\xf0\xc0\x80\x80", R "F0" R "C0" R "80" R "80"},
    /* F1-F3, then 80-BF. */
    {"\xf1\x80\x80\x80", "\xf1\x80\x80\x80"},
    {"\xf3\xbf\xbf\xbf", "\xf3\xbf\xbf\xbf"},
    {"\xf1\x7f\x80\x80", R "F1" "\x7f" R "80" R "80"},
    {"\xf3\xc0\xbf\xbf", R "F3" R "C0" R "BF" R "BF"},
    /* F4, then 80-8F (90-BF would be past U+10FFFF). */
    {"\xf4\x80\x80\x80", "\xf4\x80\x80\x80"},
    {"\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf"},
    {"\xf4\x90\x80\x80", R "F4" R "90" R "80" R "80"},
    {"\xf4\x7f\x80\x80", R "F4" "\x7f" R "80" R "80"},
    /* The third and fourth bytes of four, 80-BF. */
    {"\xf1\x80\xc0\x80", R "F1" R "80" R "C0" R "80"},
    {"\xf1\x80\x80\x7f", R "F1" R "80" R "80" "\x7f"},
    {"\xf1\x80\x80\xc0", R "F1" R "80" R "80" R "C0"},
    /* F5-FF lead nothing: past U+10FFFF, and the old 5- and 6-byte forms. */
    {"\xf5\x80\x80\x80", R "F5" R "80" R "80" R "80"},
    {"\xf7\xbf\xbf\xbf", R "F7" R "BF" R "BF" R "BF"},
    {"\xf8\x88\x80\x80\x80", R "F8" R "88" R "80" R "80" R "80"},
    {"\xfb\xbf\xbf\xbf\xbf", R "FB" R "BF" R "BF" R "BF" R "BF"},
    {"\xfc\x84\x80\x80\x80\x80", R "FC" R "84" R "80" R "80" R "80" R "80"},
    {"\xfd\xbf\xbf\xbf\xbf\xbf", R "FD" R "BF" R "BF" R "BF" R "BF" R "BF"},
    {"\xfe\xff", R "FE" R "FF"},
    /* Truncated at the end of the string. */
    {"x\xdf", "x" R "DF"},
    {"x\xe0\xa0", "x" R "E0" R "A0"},
    {"x\xed\x9f", "x" R "ED" R "9F"},
    {"x\xef\xbf", "x" R "EF" R "BF"},
    {"x\xf0\x90", "x" R "F0" R "90"},
    {"x\xf0\x90\x80", "x" R "F0" R "90" R "80"},
    {"x\xf4\x8f\xbf", "x" R "F4" R "8F" R "BF"},
    /* Unicode §3.9's example of maximal subparts (Table 3-8), byte by byte. */
    {"\x61\xf1\x80\x80\xe1\x80\xc2\x62\x80\x63\x80\xbf\x64",
     "a" R "F1" R "80" R "80" R "E1" R "80" R "C2" "b" R "80" "c" R "80" R "BF" "d"},
};

static void the_table_of_sequences(void **state)
{
    (void)state;
    char text[128], back[128];
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        size_t n = strlen(table[i].name);
        size_t len = encode(table[i].name, n, text, sizeof text);
        if (strcmp(text, table[i].text) != 0)
            fail_msg("case %zu: wrote \"%s\", expected \"%s\"", i, text, table[i].text);
        memcpy(back, text, len + 1);
        assert_int_equal(st_name_decode(back, len), n);
        assert_memory_equal(back, table[i].name, n);
    }
}

static void every_short_sequence_agrees_with_the_code_points(void **state)
{
    (void)state;
    unsigned char s[4];
    size_t valid = 0;
    for (uint32_t v = 0; v < 1u << 24; v++) {
        s[0] = (unsigned char)(v >> 16);
        s[1] = (unsigned char)(v >> 8);
        s[2] = (unsigned char)v;
        for (size_t n = 1; n <= 3; n++)
            if (st_utf8_len(s, n) != utf8_reference_len(s, n))
                fail_msg("%02x %02x %02x (%zu bytes): %zu, expected %zu", s[0], s[1], s[2], n,
                         st_utf8_len(s, n), utf8_reference_len(s, n));
        valid += st_utf8_len(s, 3) == 3;
    }
    /* U+0800..U+FFFF less the 2,048 surrogates, each once. */
    assert_int_equal(valid, 0x10000 - 0x800 - 0x800);
    static const unsigned char edges[] = {0x00, 0x7f, 0x80, 0x8f, 0x90, 0xbf, 0xc0, 0xff};
    for (unsigned lead = 0xC0; lead <= 0xFF; lead++)
        for (unsigned second = 0; second <= 0xFF; second++)
            for (size_t a = 0; a < sizeof edges; a++)
                for (size_t b = 0; b < sizeof edges; b++) {
                    s[0] = (unsigned char)lead;
                    s[1] = (unsigned char)second;
                    s[2] = edges[a];
                    s[3] = edges[b];
                    for (size_t n = 1; n <= 4; n++)
                        assert_int_equal(st_utf8_len(s, n), utf8_reference_len(s, n));
                }
}

static void text_no_name_writes_is_left_alone(void **state)
{
    (void)state;
    /* An escape of ASCII (always written as itself), lowercase or one-digit
     * hex, and U+FFFD at the very end. */
    static const char *const texts[] = {R "41", R "7F", R "ff", R "F", R "G0", "x" R, R "8"};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        char buf[16];
        size_t n = strlen(texts[i]);
        memcpy(buf, texts[i], n + 1);
        assert_int_equal(st_name_decode(buf, n), n);
        assert_memory_equal(buf, texts[i], n);
    }
}

static void random_names_round_trip(void **state)
{
    (void)state;
    static const unsigned char pool[] = {'a', '/', 0x7f, 0x80, 0x9f, 0xa0, 0xbd, 0xbf, 0xc2,
                                         0xe0, 0xed, 0xef, 0xbf, 0xf0, 0xf4, 0x90, 0xf5, 0xff,
                                         '8', 'F'};
    unsigned seed = 12345;
    char name[24], text[24 * 5 + 1];
    for (int round = 0; round < 200000; round++) {
        size_t n = 1 + (seed = seed * 1103515245 + 12345) % (sizeof name);
        for (size_t i = 0; i < n; i++)
            name[i] = (char)pool[((seed = seed * 1103515245 + 12345) >> 16) % sizeof pool];
        size_t len = encode(name, n, text, sizeof text);
        assert_true(utf8_reference_valid((const unsigned char *)text, len));
        assert_int_equal(st_name_decode(text, len), n);
        assert_memory_equal(text, name, n);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_table_of_sequences),
        cmocka_unit_test(every_short_sequence_agrees_with_the_code_points),
        cmocka_unit_test(text_no_name_writes_is_left_alone),
        cmocka_unit_test(random_names_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
