/* name_text.h — byte strings (file names, argv, symbols) as well-formed UTF-8.
 *
 * A name is bytes; JSON (RFC 8259 §8.1) and XML must be well-formed UTF-8.
 * Every string seektrace writes into them goes through st_name_piece, which
 * writes a name so that it reads as itself wherever it is well-formed and
 * decodes back to the exact bytes (docs/report-json.md, "Strings"):
 *   - a well-formed UTF-8 sequence (Unicode §3.9, Table 3-7) is itself,
 *     except U+FFFD, which is written twice;
 *   - any other byte (always 80-FF) is U+FFFD followed by its two hex
 *     digits, uppercase: the byte FF is "\xEF\xBF\xBD" "FF".
 * No valid name is written the same as another name. Neither function
 * allocates or uses stdio: the preload library calls them at exit. */
#ifndef SEEKTRACE_NAME_TEXT_H
#define SEEKTRACE_NAME_TEXT_H

#include <stddef.h>

/* The most text one st_name_piece writes (U+FFFD twice). */
#define ST_NAME_PIECE_MAX 6

/* Length (1-4) of the well-formed UTF-8 sequence that starts s (n bytes
 * available, n > 0), or 0 when none does. */
size_t st_utf8_len(const unsigned char *s, size_t n);

/* One step of writing the name s (n > 0 bytes left): returns how many bytes
 * of s it took (1-4) and puts their text in out, *out_len bytes. A taken
 * byte below 0x80 is its own text (out[0], *out_len 1), for the caller to
 * quote as its format needs. */
size_t st_name_piece(const char *s, size_t n, char out[ST_NAME_PIECE_MAX], size_t *out_len);

/* The bytes back from such text, rewritten in place; returns their length.
 * Text that no name could have produced is left as it is. */
size_t st_name_decode(char *s, size_t len);

#endif
