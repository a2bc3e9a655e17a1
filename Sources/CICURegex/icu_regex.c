#include "icu_regex.h"
#include <stdio.h>
#include <stdlib.h>
#include <unicode/uregex.h>

struct lector_regex {
  URegularExpression *expression;
};

lector_regex *lector_regex_open(const uint16_t *pattern, int32_t length, int32_t step_limit, int32_t stack_limit,
                                char *error, size_t error_size) {
  UErrorCode status = U_ZERO_ERROR;
  UParseError parse;
  URegularExpression *expression = uregex_open((const UChar *)pattern, length, 0, &parse, &status);
  if (U_FAILURE(status)) {
    if (error_size > 0) {
      if (parse.offset >= 0) snprintf(error, error_size, "%s at offset %d", u_errorName(status), (int)parse.offset);
      else snprintf(error, error_size, "%s", u_errorName(status));
    }
    return NULL;
  }
  uregex_setTimeLimit(expression, step_limit, &status);
  uregex_setStackLimit(expression, stack_limit, &status);
  lector_regex *regex = malloc(sizeof *regex);
  if (U_FAILURE(status) || regex == NULL) {
    if (error_size > 0) snprintf(error, error_size, "%s", regex == NULL ? "out of memory" : u_errorName(status));
    uregex_close(expression);
    free(regex);
    return NULL;
  }
  regex->expression = expression;
  return regex;
}

int32_t lector_regex_groups(const lector_regex *regex) {
  UErrorCode status = U_ZERO_ERROR;
  int32_t count = uregex_groupCount(regex->expression, &status);
  return U_FAILURE(status) ? 0 : count;
}

enum lector_regex_result lector_regex_find(lector_regex *regex, const uint16_t *text, int32_t length,
                                           int32_t *ranges, int32_t capacity) {
  UErrorCode status = U_ZERO_ERROR;
  enum lector_regex_result result = LECTOR_REGEX_FAILED;
  uregex_setText(regex->expression, (const UChar *)text, length, &status);
  UBool found = U_SUCCESS(status) ? uregex_find(regex->expression, 0, &status) : 0;
  if (status == U_REGEX_TIME_OUT || status == U_REGEX_STACK_OVERFLOW) {
    result = LECTOR_REGEX_LIMIT;
  } else if (U_SUCCESS(status)) {
    result = found ? LECTOR_REGEX_MATCH : LECTOR_REGEX_NO_MATCH;
    for (int32_t group = 0; found && group < capacity; group++) {
      ranges[2 * group] = uregex_start(regex->expression, group, &status);
      ranges[2 * group + 1] = uregex_end(regex->expression, group, &status);
    }
    if (U_FAILURE(status)) result = LECTOR_REGEX_FAILED;
  }
  // The regex keeps no pointer to the caller's text past this call.
  UErrorCode reset = U_ZERO_ERROR;
  static const UChar nothing[1] = {0};
  uregex_setText(regex->expression, nothing, 0, &reset);
  return result;
}

void lector_regex_close(lector_regex *regex) {
  if (regex == NULL) return;
  uregex_close(regex->expression);
  free(regex);
}
