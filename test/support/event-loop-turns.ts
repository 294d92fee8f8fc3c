/**
 * How many turns the event loop took while `work` ran (a setImmediate chain counting its ticks):
 * 0 when the work held the loop from start to end, more the more often it let other work run.
 * `work` is started after the chain, so a synchronous start counts as held too.
 */
export async function turnsWhile<T>(work: () => Promise<T>): Promise<{ turns: number; result: T }> {
  let turns = 0;
  let done = false;
  const tick = () => {
    if (done) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  const result = await work().finally(() => {
    done = true;
  });
  return { turns, result };
}
