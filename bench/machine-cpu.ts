import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';

/** Linux counts /proc/stat in clock ticks of 1/100 s. */
const TICKS_PER_SECOND = 100;

/** CPU seconds the whole machine has spent since boot, from the first line of /proc/stat. */
export interface MachineCpu {
  /** Running anything: user, nice, system, interrupts (every process, this benchmark's too). */
  busy: number;
  /** Waiting for the hypervisor to run this machine's virtual CPU. */
  steal: number;
  /** Everything, idle included. */
  total: number;
}

/**
 * Reads the machine's CPU counters; zeros where /proc/stat is missing (not Linux). Pure apart
 * from the read.
 * @example const before = await machineCpu(); …; const used = cpuBetween(before, await machineCpu());
 */
export async function machineCpu(): Promise<MachineCpu> {
  const stat = await readFile('/proc/stat', 'utf8').catch(() => '');
  const fields = (stat.split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0] = fields;
  const steal = fields[7] ?? 0;
  const busy = user + nice + system + irq + softirq;
  return {
    busy: busy / TICKS_PER_SECOND,
    steal: steal / TICKS_PER_SECOND,
    total: (busy + idle + iowait + steal) / TICKS_PER_SECOND,
  };
}

/** What the machine did between two readings. */
export interface MachineCpuUse {
  /** CPU seconds every process used. */
  busySeconds: number;
  /** Share of all cores busy over the span, 0–1. */
  busyShare: number;
  /** Share of all cores taken by the hypervisor (steal), 0–1. */
  stealShare: number;
  cores: number;
}

/** The machine's CPU use between `before` and `after`. Pure. */
export function cpuBetween(before: MachineCpu, after: MachineCpu): MachineCpuUse {
  const total = Math.max(1e-9, after.total - before.total);
  const busySeconds = after.busy - before.busy;
  return {
    busySeconds,
    busyShare: busySeconds / total,
    stealShare: (after.steal - before.steal) / total,
    cores: availableParallelism(),
  };
}
