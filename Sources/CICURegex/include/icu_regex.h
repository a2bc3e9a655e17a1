#ifndef LECTOR_CICUREGEX_H
#define LECTOR_CICUREGEX_H
// ICU's regular expressions through its C API, for lectord's rules: the same syntax as
// Foundation's NSRegularExpression (which cannot bound a match), with uregex's step
// limit so that a backtracking pattern cannot hold the thread that matches it. Debian's
// libicu (symbols suffixed with its version, uregex_open_72) does not clash with the
// copy Swift's Foundation links (lib_FoundationICU, symbols prefixed swift_).
#include <stdint.h>
#include <stddef.h>

/// A compiled pattern with its match state: one thread at a time.
typedef struct lector_regex lector_regex;

/// What `lector_regex_find` found.
enum lector_regex_result {
  LECTOR_REGEX_NO_MATCH = 0,
  LECTOR_REGEX_MATCH = 1,
  /// The match took more steps (or backtracking memory) than the limits allow.
  LECTOR_REGEX_LIMIT = 2,
  /// Any other ICU error.
  LECTOR_REGEX_FAILED = 3,
};

/// Compiles `pattern` (UTF-16, `length` units) with a limit of `step_limit` match steps
/// (ICU's time limit units, each about ten thousand steps of its backtracking engine)
/// and `stack_limit` bytes of backtracking memory. NULL when it does not compile;
/// `error` (of `error_size` bytes) then holds ICU's reason.
lector_regex *lector_regex_open(const uint16_t *pattern, int32_t length, int32_t step_limit, int32_t stack_limit,
                                char *error, size_t error_size);

/// The number of capture groups.
int32_t lector_regex_groups(const lector_regex *regex);

/// Searches `text` (UTF-16, `length` units) for the first match. On a match, `ranges`
/// (room for `capacity` pairs) receives the start and end of the whole match and then of
/// each group, in UTF-16 units (-1, -1 for a group that took no part).
enum lector_regex_result lector_regex_find(lector_regex *regex, const uint16_t *text, int32_t length,
                                           int32_t *ranges, int32_t capacity);

/// Frees what `lector_regex_open` made.
void lector_regex_close(lector_regex *regex);

#endif
