import { createRequire } from 'node:module';

/** A `require` rooted at dynalite's package. */
function dynaliteRequire(): NodeJS.Require {
  return createRequire(createRequire(import.meta.url).resolve('dynalite'));
}

/**
 * Loads `specifier` as dynalite's own files do: its modules (`./db`, `./validations`) and its
 * dependencies are the copies dynalite really uses, which the local fixes patch. dynalite is
 * CommonJS without declarations: what it returns is typed by the caller.
 * @example (requireFromDynalite('./db') as { create: unknown }).create
 */
export function requireFromDynalite(specifier: string): unknown {
  return dynaliteRequire()(specifier);
}

/** Where `specifier` resolves from dynalite's files (see {@link requireFromDynalite}). */
export function resolveFromDynalite(specifier: string): string {
  return dynaliteRequire().resolve(specifier);
}
