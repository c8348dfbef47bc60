import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildEventJsonSchemas, schemaFileName } from './json-schemas.ts';

/** Where `npm run schemas` writes, relative to the working directory (the project root). */
export const SCHEMAS_DIR = 'schemas';

/**
 * Writes `<dir>/<type>.json` for every event type and `<dir>/index.json` listing them,
 * creating `dir` if needed and overwriting earlier output. Returns the files written.
 */
export async function writeEventSchemas(dir: string = SCHEMAS_DIR): Promise<string[]> {
  const { schemas, index } = buildEventJsonSchemas();
  await mkdir(dir, { recursive: true });
  const written: string[] = [];
  for (const [type, schema] of schemas) {
    const file = join(dir, schemaFileName(type));
    await writeFile(file, `${JSON.stringify(schema, null, 2)}\n`);
    written.push(file);
  }
  const indexFile = join(dir, 'index.json');
  await writeFile(indexFile, `${JSON.stringify(index, null, 2)}\n`);
  written.push(indexFile);
  return written;
}

const invokedDirectly =
  process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href;

if (invokedDirectly) {
  const written = await writeEventSchemas();
  process.stdout.write(`wrote ${written.length} files to ${SCHEMAS_DIR}/\n`);
}
