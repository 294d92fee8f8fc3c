/**
 * Interleaved measurement (the disk's fsync and checkpoint cost, and the other engineers on a shared
 * machine, swing several-fold between minutes: never measure one side after the other). Each block
 * runs every side once, `perBlock` operations each, in an order rotated per block; a ratio is the
 * median over blocks of the per-block ratio, so a slow minute slows both sides of a block alike.
 * CPU is counted per side: its own process (process.cpuUsage) and, for a side whose work runs in
 * another process (a server), that process as the side reports it.
 */
export interface Side {
  name: string;
  /** Runs operation `i` (0, 1, … across the warm-up and all blocks) of this side (or give runBlock); `warmUp` while warming up, before measuring. */
  run?(i: number, warmUp: boolean): Promise<unknown> | unknown;
  /** Runs a whole block at once instead (e.g. several concurrent clients); gets the first index and the count. */
  runBlock?(first: number, count: number): Promise<unknown>;
  /** CPU ms used so far by a process doing this side's work besides this one (e.g. the server's). */
  remoteCpuMs?(): Promise<number>;
}

export interface SideStats {
  /** Median over blocks of the wall time per operation (ms). */
  msPerOp: number;
  /** Median over blocks of this process's CPU per operation (ms): the client, or the whole side when it runs here. */
  cpuMsPerOp: number;
  /** Median over blocks of the other process's CPU per operation (ms), when the side has one. */
  remoteCpuMsPerOp: number | null;
  /** Operations per second, from msPerOp. */
  perSec: number;
  blockMs: number[];
}

export interface Interleaved {
  sides: Record<string, SideStats>;
  blocks: number;
  perBlock: number;
  /** Median over blocks of throughput(a) / throughput(b) = time(b) / time(a). */
  ratio(a: string, b: string): number;
  /** The spread of the per-block ratios: [min, max] and the interquartile range. */
  ratioSpread(a: string, b: string): { min: number; max: number; q1: number; q3: number };
  /** How much `side`'s block times varied: slowest block ÷ fastest. */
  swing(side: string): number;
}

export interface InterleaveOptions {
  blocks: number;
  perBlock: number;
  /** Operations per side before measuring (warms JIT, caches, connections). */
  warmup?: number;
}

export async function interleave(sides: readonly Side[], options: InterleaveOptions): Promise<Interleaved> {
  const counters = new Map(sides.map((side) => [side.name, 0]));
  const runBlock = async (side: Side, count: number, warmUp = false) => {
    const first = counters.get(side.name)!;
    counters.set(side.name, first + count);
    if (side.runBlock) return side.runBlock(first, count);
    for (let i = first; i < first + count; i++) await side.run!(i, warmUp);
  };
  for (const side of sides) if (options.warmup) await runBlock(side, options.warmup, true);
  const times = new Map<string, number[]>(sides.map((side) => [side.name, []]));
  const cpu = new Map<string, number[]>(sides.map((side) => [side.name, []]));
  const remote = new Map<string, number[]>(sides.map((side) => [side.name, []]));
  for (let block = 0; block < options.blocks; block++) {
    for (let k = 0; k < sides.length; k++) {
      const side = sides[(k + block) % sides.length];
      const remoteBefore = side.remoteCpuMs ? await side.remoteCpuMs() : 0;
      const cpuBefore = process.cpuUsage();
      const start = performance.now();
      await runBlock(side, options.perBlock);
      const elapsed = performance.now() - start;
      const used = process.cpuUsage(cpuBefore);
      times.get(side.name)!.push(elapsed / options.perBlock);
      cpu.get(side.name)!.push((used.user + used.system) / 1000 / options.perBlock);
      if (side.remoteCpuMs) remote.get(side.name)!.push(((await side.remoteCpuMs()) - remoteBefore) / options.perBlock);
    }
  }
  const perBlockRatios = (a: string, b: string) => times.get(a)!.map((ms, block) => times.get(b)![block] / ms);
  const stats: Record<string, SideStats> = {};
  for (const side of sides) {
    const ms = median(times.get(side.name)!);
    stats[side.name] = {
      msPerOp: round(ms, 3),
      cpuMsPerOp: round(median(cpu.get(side.name)!), 3),
      remoteCpuMsPerOp: side.remoteCpuMs ? round(median(remote.get(side.name)!), 3) : null,
      perSec: round(1000 / ms, 1),
      blockMs: times.get(side.name)!.map((value) => round(value, 3)),
    };
  }
  return {
    sides: stats,
    blocks: options.blocks,
    perBlock: options.perBlock,
    ratio: (a, b) => round(median(perBlockRatios(a, b)), 3),
    ratioSpread: (a, b) => {
      const sorted = [...perBlockRatios(a, b)].sort((x, y) => x - y);
      return { min: round(sorted[0], 3), max: round(sorted[sorted.length - 1], 3), q1: round(quantile(sorted, 0.25), 3), q3: round(quantile(sorted, 0.75), 3) };
    },
    swing: (side) => {
      const values = times.get(side)!;
      return round(Math.max(...values) / Math.min(...values), 2);
    },
  };
}

export function median(values: readonly number[]): number {
  return quantile([...values].sort((a, b) => a - b), 0.5);
}

/** Linear interpolation between closest ranks of an ascending list. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const position = (sorted.length - 1) * q;
  const low = Math.floor(position);
  const high = Math.ceil(position);
  return sorted[low] + (sorted[high] - sorted[low]) * (position - low);
}

export const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;
