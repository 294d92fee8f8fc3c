/**
 * Stem matching for lineage inference: pairs an output file with the input it was most likely
 * derived from by comparing file-name stems. Pure functions, no I/O.
 */

export type StemMatchLevel = "EXACT" | "PREFIX";

export interface StemMatch<T> {
  /** The single candidate whose stem equals `matchedStem`. */
  readonly candidate: T;
  /** EXACT: same stem as the output; PREFIX: stem equals a digit-boundary prefix of the output stem. */
  readonly level: StemMatchLevel;
  /** The output-stem level that matched: the whole output stem (EXACT) or a proper prefix of it (PREFIX). */
  readonly matchedStem: string;
}

export interface StemIndex<T> {
  /** Matches one output name against the indexed candidates (see `matchByStem` for the rules). */
  match(outputName: string): StemMatch<T> | undefined;
}

const isAsciiDigit = (ch: string): boolean => ch >= "0" && ch <= "9";

/** An extension: 1–10 ASCII letters and digits with at least one letter (`gz`, `mp4`, `7z`; not `2` or `0001`). */
const EXTENSION = /^(?=[0-9]*[A-Za-z])[A-Za-z0-9]{1,10}$/;

// Seed rule "stem matching: strip all extensions": basename, then strip trailing extensions one by one
// (`archive.tar.gz.part` → `archive`). A dot-segment that is not an extension (`v1.2.3`, `S1.1_R1`,
// `report 1.5`) stays in the stem, and a leading dot belongs to the name (`.bashrc`).
export function stemOf(name: string): string {
  let stem = name.slice(Math.max(name.lastIndexOf("/"), name.lastIndexOf("\\")) + 1);
  for (let dot = stem.lastIndexOf("."); dot > 0 && EXTENSION.test(stem.slice(dot + 1)); dot = stem.lastIndexOf(".")) {
    stem = stem.slice(0, dot);
  }
  return stem;
}

// Seed rule "digit boundary": proper prefixes of the stem, longest first, skipping every cut that would drop a digit (index k of the stem).
export function digitBoundaryPrefixes(stem: string): string[] {
  const prefixes: string[] = [];
  for (let k = stem.length - 1; k >= 1; k--) {
    if (!isAsciiDigit(stem[k])) prefixes.push(stem.slice(0, k));
  }
  return prefixes;
}

// Seed rule "exact match first, then prefixes longest-first, digit boundary, exactly one candidate per level" (index built once, reused per output).
export function createStemIndex<T>(candidates: readonly T[], nameOf: (c: T) => string): StemIndex<T> {
  const byStem = new Map<string, T[]>();
  for (const candidate of candidates) {
    const stem = stemOf(nameOf(candidate));
    const bucket = byStem.get(stem);
    if (bucket) bucket.push(candidate);
    else byStem.set(stem, [candidate]);
  }
  return {
    match(outputName: string): StemMatch<T> | undefined {
      if (byStem.size === 0) return undefined;
      const outputStem = stemOf(outputName);
      if (outputStem === "") return undefined; // a nameless output (e.g. "dir/") matches nothing
      const exact = byStem.get(outputStem);
      if (exact?.length === 1) return { candidate: exact[0], level: "EXACT", matchedStem: outputStem };
      for (const prefix of digitBoundaryPrefixes(outputStem)) {
        const bucket = byStem.get(prefix);
        if (bucket?.length === 1) return { candidate: bucket[0], level: "PREFIX", matchedStem: prefix };
      }
      return undefined;
    },
  };
}

// Seed rule "exact match first, then prefixes longest-first, digit boundary, exactly one candidate per level" (one-off; use createStemIndex for many outputs).
export function matchByStem<T>(
  outputName: string,
  candidates: readonly T[],
  nameOf: (c: T) => string,
): StemMatch<T> | undefined {
  return createStemIndex(candidates, nameOf).match(outputName);
}
