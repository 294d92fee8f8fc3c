/** Whether a JSON value nests objects/arrays more than `max` levels (`{}` is 1). Measured with a loop, so any depth is safe to check. */
export function jsonDepthExceeds(value: unknown, max: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length) {
    const [current, depth] = pending.pop()!;
    if (current === null || typeof current !== "object") continue;
    if (depth + 1 > max) return true;
    for (const child of Array.isArray(current) ? current : Object.values(current)) pending.push([child, depth + 1]);
  }
  return false;
}
