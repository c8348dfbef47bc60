/** undici's fetch constants (a CommonJS file without types; fetch-blocked-ports.ts reads it). */
declare module 'undici/lib/web/fetch/constants.js' {
  const constants: unknown;
  export default constants;
}
