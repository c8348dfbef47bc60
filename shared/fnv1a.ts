/** FNV-1a's 32-bit offset basis: the hash of nothing. */
export const FNV_OFFSET = 0x811c9dc5;
/** FNV-1a's 32-bit prime. */
export const FNV_PRIME = 0x01000193;

/**
 * Folds the UTF-16 code units of `text` into a 32-bit FNV-1a `hash` (a signed 32-bit integer).
 * Pure.
 * @example fnv1a(FNV_OFFSET, 'a') === fnv1a(FNV_OFFSET, 'a')
 */
export function fnv1a(hash: number, text: string): number {
  let folded = hash | 0;
  for (let i = 0; i < text.length; i++) folded = Math.imul(folded ^ text.charCodeAt(i), FNV_PRIME);
  return folded;
}
