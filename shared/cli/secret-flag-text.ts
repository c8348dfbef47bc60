/**
 * Flags that take a secret from somewhere (`--access-token-stdin`, `--access-token-file`): a
 * value glued to one (`--access-token-stdin=…`) may be the secret itself, typed where the flag
 * wants none or a path.
 */
const SECRET_FLAG_WITH_VALUE = /(--[\w-]*(?:token|secret)[\w-]*)=[^\s'"]*/gi;

/**
 * `text` (an error commander writes, which quotes the argument it refuses) with the value glued
 * to a secret's flag left out, so a token typed as `--access-token-stdin=TOKEN` does not reach
 * stderr, and CI logs, again.
 * @example withoutSecretFlagValues("unknown option '--access-token-stdin=abc'") // "unknown option '--access-token-stdin=…'"
 */
export function withoutSecretFlagValues(text: string): string {
  return text.replace(SECRET_FLAG_WITH_VALUE, '$1=…');
}
