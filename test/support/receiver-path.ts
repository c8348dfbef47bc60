let issued = 0;

/**
 * A path no other receiver uses, in this test process or another (`/<name>-<pid>-<n>`).
 *
 * Test files run side by side, so a port a receiver gets from the system may have been another
 * test's a moment ago, and that test's bridge may still be retrying a delivery to it. A
 * receiver that answers its own path only (404 to anything else, neither counted nor logged)
 * sees its own test's requests alone.
 */
export function receiverPath(name: string): string {
  issued += 1;
  return `/${name}-${process.pid}-${issued}`;
}
