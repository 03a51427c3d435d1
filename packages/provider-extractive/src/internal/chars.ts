/**
 * Character classes by UTF-16 code, for the scans that read ASCII text in
 * place (near keys, terms, syntax-only lines).
 *
 * @internal
 */

/** Whether `c` is an ASCII letter. */
export const isAsciiLetter = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90)

/** Whether `c` is an ASCII digit. */
export const isAsciiDigit = (c: number): boolean => c >= 48 && c <= 57
