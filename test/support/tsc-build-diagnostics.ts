/**
 * The diagnostics of one project of a `tsc -b --pretty false` over several projects, each in a
 * folder of its own, told apart by the folder their file paths (relative to tsc's cwd) start
 * with: `esm/node16/consumer.ts(3,1): error TS2322: …` belongs to `esm/node16`. An indented
 * line continues the diagnostic above it. A diagnostic that names no project's folder (an
 * option error, a crash) is every project's, as is a failed exit that printed nothing: no
 * project can pass on a build that failed. Pure.
 * @example projectDiagnostics('a/x.ts(1,1): error TS1: no\n', 1, ['a', 'b'], 'b') // []
 */
export function projectDiagnostics(
  output: string,
  exitCode: number,
  projects: readonly string[],
  project: string,
): string[] {
  const diagnostics: string[] = [];
  for (const line of output.split('\n')) {
    if (line.trim() === '') continue;
    const previous = diagnostics.length - 1;
    if (/^\s/.test(line) && previous >= 0) diagnostics[previous] += `\n${line}`;
    else diagnostics.push(line);
  }
  if (diagnostics.length === 0 && exitCode !== 0) {
    return [`tsc -b exited ${exitCode} without a diagnostic`];
  }
  const owner = (diagnostic: string) => projects.find((name) => diagnostic.startsWith(`${name}/`));
  return diagnostics.filter((diagnostic) => {
    const found = owner(diagnostic);
    return found === undefined || found === project;
  });
}
