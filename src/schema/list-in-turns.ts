import { yieldToEventLoop } from "../services/recording";

/** Items of a list answer completed in one turn of the event loop. */
export const LIST_ITEMS_PER_TURN = 1_000;

/**
 * A long list answer (an execution's 20,000 outputs) completed a slice per turn of the event loop:
 * GraphQL completes every item of a list, and each item's fields, in one go when the items are
 * values — seconds for tens of thousands of them. Here the first slice is values; the items of each
 * slice after it are one promise resolved a turn after the one before, so the executor completes
 * that slice only then, and requests waiting meanwhile are answered between slices. The answer
 * itself is the same list. A short list is returned as it is.
 */
export function listInTurns<T>(items: readonly T[], perTurn = LIST_ITEMS_PER_TURN): (T | Promise<T>)[] {
  if (items.length <= perTurn) return [...items];
  const answer: (T | Promise<T>)[] = items.slice(0, perTurn);
  let turn: Promise<void> = Promise.resolve();
  for (let start = perTurn; start < items.length; start += perTurn) {
    turn = turn.then(yieldToEventLoop);
    const slice = turn;
    for (let i = start; i < Math.min(items.length, start + perTurn); i++) answer.push(slice.then(() => items[i]));
  }
  return answer;
}
