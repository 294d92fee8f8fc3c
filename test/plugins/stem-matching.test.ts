import fc from "fast-check";
import {
  createStemIndex,
  digitBoundaryPrefixes,
  matchByStem,
  stemOf,
  type StemMatch,
} from "../../plugins/lineage-inference/stem";

/** Matches `output` against plain file names; the candidate is the matched name itself. */
const matchNames = (output: string, inputs: readonly string[]): StemMatch<string> | undefined =>
  matchByStem(output, inputs, (name) => name);

const basename = (name: string): string => name.slice(Math.max(name.lastIndexOf("/"), name.lastIndexOf("\\")) + 1);

describe("stemOf: strip the directory, then every extension", () => {
  it.each([
    ["a.tar.gz", "a"],
    [".gitignore", ".gitignore"],
    ["file..txt", "file."],
    ["sample_001_transformed.csv", "sample_001_transformed"],
    ["noext", "noext"],
    ["x.", "x."],
    ["dir/sub/a.b.c", "a"],
    [".env.local", ".env"],
    ["C:\\data\\run\\reads.fastq.gz", "reads"],
    ["mixed/dir\\name.v2.txt", "name"],
    ["dir.with.dots/plain", "plain"],
    ["..hidden", "."],
    ["dir/", ""],
    ["", ""],
  ])("%j has stem %j", (name, stem) => {
    expect(stemOf(name)).toBe(stem);
  });
});

describe("stemOf: an extension is 1–10 ASCII letters and digits with a letter; other dot-segments stay", () => {
  it.each([
    ["archive.tar.gz.part", "archive"],
    ["x.fa.gz", "x"],
    [".bashrc", ".bashrc"],
    ["v1.2.3_data.csv", "v1.2.3_data"],
    ["v1.2.3_data_out.csv", "v1.2.3_data_out"],
    ["S1.1_R1.fastq.gz", "S1.1_R1"],
    ["S1.2_R1.fastq.gz", "S1.2_R1"],
    ["report 1.5.pdf", "report 1.5"],
    ["design_1.0.json", "design_1.0"],
    ["movie.mp4", "movie"],
    ["bundle.7z", "bundle"],
    ["photo.JPEG", "photo"],
    ["notes.2024", "notes.2024"], // digits only: a version or a date, not an extension
    ["table.0001.csv", "table.0001"],
    ["data.abcdefghijk", "data.abcdefghijk"], // 11 characters: too long for an extension
    ["data.abcdefghij", "data"], // 10 characters
    ["run.final_v2", "run.final_v2"], // '_' is not a letter or digit
    ["carte.géo", "carte.géo"], // not ASCII
    ["v2.1-beta.tar", "v2.1-beta"],
    ["dir/.config.yaml", ".config"],
  ])("%j has stem %j", (name, stem) => {
    expect(stemOf(name)).toBe(stem);
  });

  it("v1.2.3_data_out.csv is not derived from v1.9.9_other.csv (stems used to be cut to v1)", () => {
    expect(matchNames("v1.2.3_data_out.csv", ["v1.9.9_other.csv"])).toBeUndefined();
  });

  it("S1.1_R1 and S1.2_R1 no longer collide: each trimmed read matches its own sample", () => {
    const inputs = ["S1.1_R1.fastq.gz", "S1.2_R1.fastq.gz"];
    expect(matchNames("S1.1_R1_trimmed.fastq.gz", inputs)).toEqual({ candidate: "S1.1_R1.fastq.gz", level: "PREFIX", matchedStem: "S1.1_R1" });
    expect(matchNames("S1.2_R1_trimmed.fastq.gz", inputs)).toEqual({ candidate: "S1.2_R1.fastq.gz", level: "PREFIX", matchedStem: "S1.2_R1" });
  });

  it("design_1.0 still matches design_1 by prefix: the dropped character is a dot, not a digit", () => {
    expect(matchNames("design_1.0.json", ["design_1.json"])).toEqual({ candidate: "design_1.json", level: "PREFIX", matchedStem: "design_1" });
  });

  it("report 1.5.pdf matches report 1.5.docx exactly, not report 1.50.docx", () => {
    expect(matchNames("report 1.5.pdf", ["report 1.50.docx", "report 1.5.docx"])).toEqual({ candidate: "report 1.5.docx", level: "EXACT", matchedStem: "report 1.5" });
  });
});

describe("digitBoundaryPrefixes: proper prefixes, longest first, never dropping a digit", () => {
  it.each<[string, string[]]>([
    ["design_10", ["design", "desig", "desi", "des", "de", "d"]],
    ["design_1_out", ["design_1_ou", "design_1_o", "design_1_", "design_1", "design", "desig", "desi", "des", "de", "d"]],
    ["run_a", ["run_", "run", "ru", "r"]],
    ["a1", []],
    ["a", []],
    ["", []],
    ["123", []],
    ["x12y", ["x12"]],
  ])("%j gives %j", (stem, prefixes) => {
    expect(digitBoundaryPrefixes(stem)).toEqual(prefixes);
  });
});

describe("matchByStem: exact stem first", () => {
  it("an output with the same stem as one input matches it at EXACT level", () => {
    expect(matchNames("sample_001_transformed.csv", ["sample_001.csv", "sample_001_transformed.tsv", "sample.csv"])).toEqual({
      candidate: "sample_001_transformed.tsv",
      level: "EXACT",
      matchedStem: "sample_001_transformed",
    });
  });

  it("an exact match wins even when a prefix level would also be unique", () => {
    expect(matchNames("run_a.out", ["run.csv", "run_a.csv"])).toEqual({
      candidate: "run_a.csv",
      level: "EXACT",
      matchedStem: "run_a",
    });
  });

  it("a .tar.gz output is fully stripped: a.tar.gz matches a.csv", () => {
    expect(matchNames("a.tar.gz", ["b.csv", "a.csv"])).toEqual({ candidate: "a.csv", level: "EXACT", matchedStem: "a" });
  });

  it("a multi-extension input is fully stripped too: a.csv matches a.tar.gz", () => {
    expect(matchNames("a.csv", ["a.tar.gz"])).toEqual({ candidate: "a.tar.gz", level: "EXACT", matchedStem: "a" });
  });

  it("directory parts of output and inputs are ignored", () => {
    expect(matchNames("out/results/reads.bam", ["in/raw/other.fastq", "C:\\in\\raw\\reads.fastq.gz"])).toEqual({
      candidate: "C:\\in\\raw\\reads.fastq.gz",
      level: "EXACT",
      matchedStem: "reads",
    });
  });

  it("a dotfile output keeps its leading dot: .env.prod matches .env", () => {
    expect(matchNames(".env.prod", ["env", ".env"])).toEqual({ candidate: ".env", level: "EXACT", matchedStem: ".env" });
  });
});

describe("matchByStem: prefixes longest first, with a digit boundary", () => {
  it("design_1 output does not match a design_10 input (a longer input stem is never a prefix level)", () => {
    expect(matchNames("design_1.csv", ["design_10.csv"])).toBeUndefined();
  });

  it("design_10 output does not match a design_1 input (cutting the 0 of design_10 is a digit cut)", () => {
    expect(matchNames("design_10.csv", ["design_1.csv"])).toBeUndefined();
  });

  it("design_10_out matches design_10, not design_1, when both are inputs", () => {
    expect(matchNames("design_10_out.csv", ["design_1.csv", "design_10.csv"])).toEqual({
      candidate: "design_10.csv",
      level: "PREFIX",
      matchedStem: "design_10",
    });
  });

  it("design_10_out with only design_1 as input matches nothing (design_1 is reached only by cutting a digit)", () => {
    expect(matchNames("design_10_out.csv", ["design_1.csv"])).toBeUndefined();
  });

  it("design_1_x matches design_1 among [design_1, design_10] (the cut drops _, not a digit)", () => {
    expect(matchNames("design_1_x.csv", ["design_1.csv", "design_10.csv"])).toEqual({
      candidate: "design_1.csv",
      level: "PREFIX",
      matchedStem: "design_1",
    });
  });

  it("the longest unique prefix wins over a shorter one", () => {
    expect(matchNames("run_a_x.txt", ["run.csv", "run_a.csv"])).toEqual({
      candidate: "run_a.csv",
      level: "PREFIX",
      matchedStem: "run_a",
    });
  });

  it("an ambiguous prefix level is skipped and a shorter unique prefix wins: run_a_x with inputs run_a.csv, run_a.json, run.csv matches run.csv", () => {
    expect(matchNames("run_a_x.txt", ["run_a.csv", "run_a.json", "run.csv"])).toEqual({
      candidate: "run.csv",
      level: "PREFIX",
      matchedStem: "run",
    });
  });

  it("an ambiguous exact level falls through to the prefix levels: ab with inputs ab.csv, ab.json, a.csv matches a.csv", () => {
    expect(matchNames("ab.txt", ["ab.csv", "ab.json", "a.csv"])).toEqual({
      candidate: "a.csv",
      level: "PREFIX",
      matchedStem: "a",
    });
  });

  it("two inputs sharing the output's stem and no shorter candidate: no match", () => {
    expect(matchNames("s.txt", ["s.csv", "s.json"])).toBeUndefined();
  });

  it("two inputs sharing the only prefix stem: no match", () => {
    expect(matchNames("s_t.csv", ["s.csv", "s.json"])).toBeUndefined();
  });

  it("two distinct input entities with the same name are ambiguous", () => {
    const inputs = [
      { id: 1, name: "reads.fastq" },
      { id: 2, name: "reads.fastq" },
    ];
    expect(matchByStem("reads_trimmed.fastq", inputs, (input) => input.name)).toBeUndefined();
  });

  it("prefix cuts are per character, not per token: run_a matches ru", () => {
    expect(matchNames("run_a.txt", ["ru.csv"])).toEqual({ candidate: "ru.csv", level: "PREFIX", matchedStem: "ru" });
  });

  it("a candidate stem must equal a prefix, not merely start with it: run does not match run_a", () => {
    expect(matchNames("run.txt", ["run_a.csv"])).toBeUndefined();
  });

  it("a prefix level needs a candidate stem equal to it, not starting with it: run_a_x does not match run_ab", () => {
    expect(matchNames("run_a_x.txt", ["run_ab.csv"])).toBeUndefined();
  });
});

describe("matchByStem: no match", () => {
  it("is case-sensitive: Sample does not match sample", () => {
    expect(matchNames("Sample.csv", ["sample.csv"])).toBeUndefined();
  });

  it("is case-sensitive: sample picks sample, not Sample", () => {
    expect(matchNames("sample.out", ["Sample.csv", "sample.csv"])).toEqual({
      candidate: "sample.csv",
      level: "EXACT",
      matchedStem: "sample",
    });
  });

  it("an empty candidate list gives undefined", () => {
    expect(matchNames("a.csv", [])).toBeUndefined();
  });

  it("unrelated names give undefined", () => {
    expect(matchNames("alpha.csv", ["beta.csv", "gamma.json"])).toBeUndefined();
  });

  it("a nameless output (directory path) matches nothing, even a nameless input", () => {
    expect(matchNames("out/", ["in/", "a.csv"])).toBeUndefined();
  });
});

describe("createStemIndex: one index, many outputs", () => {
  it("matches each output against the same inputs", () => {
    const inputs = [
      { id: "i1", path: "in/design_1.csv" },
      { id: "i2", path: "in/design_10.csv" },
      { id: "i3", path: "in/run.csv" },
    ];
    const index = createStemIndex(inputs, (input) => input.path);
    const matched = ["out/design_1_x.csv", "out/design_10.tsv", "out/run_7.log", "out/other.txt"].map((output) => {
      const match = index.match(output);
      return match && [match.candidate.id, match.level, match.matchedStem];
    });
    expect(matched).toEqual([
      ["i1", "PREFIX", "design_1"],
      ["i2", "EXACT", "design_10"],
      ["i3", "PREFIX", "run"],
      undefined,
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
// Properties. Small alphabets (with dots, digits, separators) make stems collide often enough to
// exercise exact, prefix, ambiguous and digit-boundary levels.

const stemChar = fc.constantFrom("a", "b", "X", "_", "-", "0", "1", "9");
const nameChar = fc.constantFrom("a", "b", "_", "0", "1", ".", "/");
/** One extension segment (letters and digits, at least one letter, ≤ 10), and one to three of them (`c`, `7z`, `tar.gz`). */
const extSegmentArb = fc
  .tuple(fc.constantFrom("c", "t", "gz", "7z", "Z"), fc.string({ unit: fc.constantFrom("s", "v", "g", "z", "0", "9"), maxLength: 4 }))
  .map(([head, tail]) => head + tail);
const extArb = fc.array(extSegmentArb, { minLength: 1, maxLength: 3 }).map((segments) => segments.join("."));
const dirArb = fc.constantFrom("", "in/", "a/b/", "C:\\data\\", "x.y/");

/** A brute-force reading of the spec, independent of the implementation's index and prefix helper. */
function specMatch(output: string, names: readonly string[]): { index: number; level: string; matchedStem: string } | undefined {
  const outStem = stemOf(output);
  if (outStem === "") return undefined;
  const levels: [string, string][] = [[outStem, "EXACT"]];
  for (let k = outStem.length - 1; k >= 1; k--) {
    if (!/[0-9]/.test(outStem.charAt(k))) levels.push([outStem.substring(0, k), "PREFIX"]);
  }
  for (const [level, kind] of levels) {
    const hits = names.flatMap((name, index) => (stemOf(name) === level ? [index] : []));
    if (hits.length === 1) return { index: hits[0], level: kind, matchedStem: level };
  }
  return undefined;
}

/** Output names plus inputs built from prefixes of the output stem, so prefix matches are frequent. */
const scenarioArb = fc
  .record({
    dir: dirArb,
    outBase: fc.string({ unit: fc.constantFrom("a", "b", "_", "0", "1", "."), minLength: 1, maxLength: 10 }),
    ext: extArb,
    prefixCuts: fc.array(fc.nat(), { maxLength: 6 }),
    inputExts: fc.array(extArb, { minLength: 6, maxLength: 6 }),
    noise: fc.array(fc.string({ unit: nameChar, maxLength: 8 }), { maxLength: 4 }),
  })
  .map(({ dir, outBase, ext, prefixCuts, inputExts, noise }) => {
    const output = `${dir}${outBase}.${ext}`;
    const outStem = stemOf(output);
    const fromPrefixes = prefixCuts.map((cut, i) => `in/${outStem.slice(0, 1 + (cut % Math.max(outStem.length, 1)))}.${inputExts[i]}`);
    return { output, inputs: [...fromPrefixes, ...noise] };
  });

describe("properties", () => {
  it("(a) exactly one input with the output's exact stem always wins, whatever other inputs exist", () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.string({ unit: stemChar, minLength: 1, maxLength: 8 }),
        dirArb,
        extArb,
        extArb,
        fc.array(fc.string({ unit: nameChar, maxLength: 10 }), { maxLength: 8 }),
        fc.nat(),
        (dotted, body, dir, outExt, inExt, otherNames, position) => {
          const stem = (dotted ? "." : "") + body;
          const output = `out/${stem}.${outExt}`;
          expect(stemOf(output)).toBe(stem);
          // other inputs: anything, including names that are prefixes of the stem, except the same stem
          const others = [...otherNames, ...digitBoundaryPrefixes(stem)]
            .filter((name) => stemOf(name) !== stem)
            .map((name) => ({ name }));
          const target = { name: `${dir}${stem}.${inExt}` };
          const inputs = [...others];
          inputs.splice(position % (others.length + 1), 0, target);
          const match = matchByStem(output, inputs, (input) => input.name);
          expect(match).toEqual({ candidate: target, level: "EXACT", matchedStem: stem });
          expect(match?.candidate).toBe(target);
        },
      ),
    );
  });

  it("(b) a digit is never cut: after a PREFIX match, the next character of the output stem is not a digit", () => {
    let prefixMatches = 0;
    fc.assert(
      fc.property(scenarioArb, ({ output, inputs }) => {
        const match = matchNames(output, inputs);
        if (match?.level !== "PREFIX") return;
        prefixMatches++;
        const next = stemOf(output).charAt(match.matchedStem.length);
        expect(next).not.toBe("");
        expect(next).not.toMatch(/[0-9]/);
      }),
      { numRuns: 500 },
    );
    expect(prefixMatches).toBeGreaterThan(50); // the property was really exercised
  });

  it("(c) a match's input stem equals the matched level, which is the output stem (EXACT) or a proper prefix of it (PREFIX), and is unique", () => {
    fc.assert(
      fc.property(scenarioArb, ({ output, inputs }) => {
        const match = matchNames(output, inputs);
        if (match === undefined) return;
        const outStem = stemOf(output);
        expect(stemOf(match.candidate)).toBe(match.matchedStem);
        expect(outStem.startsWith(match.matchedStem)).toBe(true);
        expect(match.level).toBe(match.matchedStem === outStem ? "EXACT" : "PREFIX");
        expect(inputs.filter((name) => stemOf(name) === match.matchedStem)).toHaveLength(1);
      }),
      { numRuns: 500 },
    );
  });

  it("(d) matchByStem and a reused createStemIndex agree with a brute-force reading of the spec", () => {
    fc.assert(
      fc.property(fc.array(scenarioArb, { minLength: 1, maxLength: 4 }), (scenarios) => {
        const inputs = scenarios.flatMap((s) => s.inputs);
        const indices = inputs.map((_, i) => i);
        const index = createStemIndex(indices, (i) => inputs[i]);
        for (const { output } of scenarios) {
          const expected = specMatch(output, inputs);
          const got = matchByStem(output, indices, (i) => inputs[i]);
          expect(got && { index: got.candidate, level: got.level, matchedStem: got.matchedStem }).toEqual(expected);
          expect(index.match(output)).toEqual(got);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("(e) digitBoundaryPrefixes lists exactly the proper prefixes whose next character is not a digit, longest first", () => {
    fc.assert(
      fc.property(fc.string({ unit: stemChar, maxLength: 12 }), (stem) => {
        const prefixes = digitBoundaryPrefixes(stem);
        const lengths = prefixes.map((p) => p.length);
        const expectedLengths: number[] = [];
        for (let k = stem.length - 1; k >= 1; k--) if (!"0123456789".includes(stem[k])) expectedLengths.push(k);
        expect(lengths).toEqual(expectedLengths);
        for (const p of prefixes) expect(stem.startsWith(p)).toBe(true);
      }),
    );
  });

  // arbitrary strings, and dotted names with optional directories (e.g. "a/.b..c.d", "x\\1.a")
  const dottedName = fc
    .tuple(
      fc.constantFrom("", "d/", "d.e/", "c:\\d\\"),
      fc.array(fc.string({ unit: fc.constantFrom("a", "1", "_", "."), maxLength: 3 }), { maxLength: 5 }),
    )
    .map(([dir, parts]) => dir + parts.join("."));
  const anyName = fc.oneof(fc.string(), fc.string({ unit: fc.constantFrom("a", "1", ".", "/", "\\"), maxLength: 12 }), dottedName);

  it("(f) stemOf is idempotent: the stem of a stem is itself", () => {
    fc.assert(
      fc.property(anyName, (name) => {
        expect(stemOf(stemOf(name))).toBe(stemOf(name));
      }),
      { numRuns: 500 },
    );
  });

  it("(g) stemOf is a prefix of the basename, contains no separator, and ignores any directory", () => {
    fc.assert(
      fc.property(anyName, anyName, fc.constantFrom("/", "\\"), (name, dir, sep) => {
        const stem = stemOf(name);
        expect(basename(name).startsWith(stem)).toBe(true);
        expect(stem).not.toMatch(/[/\\]/);
        expect(stemOf(`${dir}${sep}${name}`)).toBe(stem);
      }),
      { numRuns: 500 },
    );
  });

  it("(i) a version-dotted name never matches a different version, and matches its own", () => {
    const versionsArb = fc
      .integer({ min: 1, max: 4 })
      .chain((parts) => fc.array(fc.array(fc.nat({ max: 30 }), { minLength: parts, maxLength: parts }).map((n) => n.join(".")), { minLength: 2, maxLength: 6 }));
    const suffixArb = fc.constantFrom("", "_data", "_R1", "_out_2", " final", "-x", "_1.5");
    let compared = 0;
    fc.assert(
      fc.property(
        versionsArb,
        fc.constantFrom("v", "S", "design_", "run-", "report ", ""),
        suffixArb,
        fc.array(suffixArb, { minLength: 6, maxLength: 6 }),
        extArb,
        extArb,
        ([own, ...others], prefix, outSuffix, inSuffixes, outExt, inExt) => {
          const output = `${prefix}${own}${outSuffix}.${outExt}`;
          const different = others.filter((version) => version !== own).map((version, i) => `in/${prefix}${version}${inSuffixes[i]}.${inExt}`);
          compared += different.length;
          expect(matchNames(output, different)).toBeUndefined();
          const mine = `in/${prefix}${own}.${inExt}`;
          expect(matchNames(output, [...different, mine])?.candidate).toBe(mine);
        },
      ),
      { numRuns: 500 },
    );
    expect(compared).toBeGreaterThan(1000);
  });

  it("(h) appending an extension to a non-empty stem gives the stem back", () => {
    const stemArb = fc
      .string({ unit: fc.constantFrom("a", "1", ".", "_"), minLength: 1, maxLength: 8 })
      .filter((s) => stemOf(s) === s);
    fc.assert(
      fc.property(stemArb, extArb, (stem, ext) => {
        expect(stemOf(`${stem}.${ext}`)).toBe(stem);
      }),
    );
  });
});
