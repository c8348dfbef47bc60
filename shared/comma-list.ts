/**
 * Splits comma-separated text into its trimmed, non-empty parts.
 * @example splitCommaList('a, b,,c') // ['a', 'b', 'c']
 */
export function splitCommaList(text: string): string[] {
  return text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
}

/**
 * For `z.preprocess`: comma-separated text (`'a, b,c'`) becomes a list; other values pass
 * unchanged, so an array is accepted too.
 */
export function splitCommaText(value: unknown): unknown {
  return typeof value === 'string' ? splitCommaList(value) : value;
}
