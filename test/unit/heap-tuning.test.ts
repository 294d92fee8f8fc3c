import { spawnSync } from "node:child_process";
import path from "node:path";
import { loadConfig } from "../../src/config";
import { STEPWISE_MAX_CORES, STEPWISE_MIN_HEAP_LIMIT_MB, STEPWISE_THREAD_SEMI_SPACE_MB, tuneHeaps } from "../../src/heap-tuning";

const ROOT = path.join(__dirname, "..", "..");

function flagsSet(settings: Parameters<typeof tuneHeaps>[0], cores: number, heapLimitMb = 4096): { flags: string[]; tuning: ReturnType<typeof tuneHeaps> } {
  const flags: string[] = [];
  const tuning = tuneHeaps(settings, { cores, heapLimitMb }, (flag) => flags.push(flag));
  return { flags, tuning };
}

describe("the heaps' V8 flags (heap-tuning.ts)", () => {
  test("auto: stepwise marking and smaller thread young generations on two cores or fewer, V8's own above", () => {
    expect(STEPWISE_MAX_CORES).toBe(2);
    for (const cores of [1, 2]) {
      expect(flagsSet({ heapGrowthPercent: 20, gcMarking: "auto" }, cores)).toEqual({
        flags: ["--heap-growing-percent=20", "--no-concurrent-marking", `--max-semi-space-size=${STEPWISE_THREAD_SEMI_SPACE_MB}`],
        tuning: { heapGrowthPercent: 20, gcMarking: "stepwise" },
      });
    }
    for (const cores of [3, 16]) {
      expect(flagsSet({ heapGrowthPercent: 20, gcMarking: "auto" }, cores)).toEqual({ flags: ["--heap-growing-percent=20"], tuning: { heapGrowthPercent: 20, gcMarking: "concurrent" } });
    }
  });

  test("auto keeps concurrent marking under a heap limit set below 1 GB (a heap expected to run close to it)", () => {
    expect(STEPWISE_MIN_HEAP_LIMIT_MB).toBe(1024);
    expect(flagsSet({ heapGrowthPercent: 20, gcMarking: "auto" }, 2, 1023).tuning.gcMarking).toBe("concurrent");
    expect(flagsSet({ heapGrowthPercent: 20, gcMarking: "auto" }, 2, 1024).tuning.gcMarking).toBe("stepwise");
    expect(flagsSet({ heapGrowthPercent: 20, gcMarking: "stepwise" }, 2, 80).tuning.gcMarking).toBe("stepwise");
  });

  test("an explicit GC_MARKING holds whatever the cores; HEAP_GROWTH_PERCENT=0 sets no growth flag", () => {
    expect(flagsSet({ heapGrowthPercent: 0, gcMarking: "concurrent" }, 1)).toEqual({ flags: [], tuning: { heapGrowthPercent: 0, gcMarking: "concurrent" } });
    expect(flagsSet({ heapGrowthPercent: 0, gcMarking: "stepwise" }, 64).flags).toEqual(["--no-concurrent-marking", `--max-semi-space-size=${STEPWISE_THREAD_SEMI_SPACE_MB}`]);
  });

  test("GC_MARKING: auto by default; auto, concurrent or stepwise in any case; anything else refused by name", () => {
    expect(loadConfig({}).gcMarking).toBe("auto");
    expect(loadConfig({ GC_MARKING: " Stepwise " }).gcMarking).toBe("stepwise");
    expect(loadConfig({ GC_MARKING: "concurrent" }).gcMarking).toBe("concurrent");
    expect(() => loadConfig({ GC_MARKING: "off" })).toThrow("invalid configuration: GC_MARKING must be auto, concurrent or stepwise, got 'off'");
  });

  /**
   * The flags set at run time take effect (V8 may ignore a flag changed after it started): in a
   * process of its own, tuned as the server tunes itself, a heap is collected in full a few times
   * (V8's traces count the marking tasks started on background threads), and a thread started
   * afterwards reports its young generation's size.
   */
  function collectedAfterTuning(gcMarking: "concurrent" | "stepwise"): { fullCollections: number; backgroundTasks: number; threadNewSpaceMb: number } {
    const script = `
      require("tsx/cjs/api").register();
      const { tuneHeaps } = require(${JSON.stringify(path.join(ROOT, "src", "heap-tuning.ts"))});
      tuneHeaps({ heapGrowthPercent: 0, gcMarking: ${JSON.stringify(gcMarking)} });
      const { Worker } = require("node:worker_threads");
      const churn = () => {
        const v8 = require("node:v8");
        const kept = [];
        let newSpace = 0;
        for (let round = 0; round < 300; round++) {
          const objects = [];
          for (let i = 0; i < 20000; i++) objects.push({ i, s: "x" + i });
          kept.push(objects);
          if (kept.length > 30) kept.shift();
          newSpace = Math.max(newSpace, v8.getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_size);
        }
        return newSpace;
      };
      churn();
      const thread = new Worker("const { parentPort } = require('node:worker_threads'); parentPort.postMessage((" + churn.toString() + ")());", { eval: true });
      thread.on("message", (bytes) => { console.log("THREAD_NEW_SPACE " + bytes); thread.terminate(); });
    `;
    const run = spawnSync(process.execPath, ["--trace-gc", "--trace-concurrent-marking", "-e", script], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
    expect(run.status).toBe(0);
    // The main thread's lines come first; only its collections (before the thread starts) are counted.
    const mainLines = run.stdout.split("\n").filter((line) => !/THREAD_NEW_SPACE/.test(line));
    const mainIsolate = /^\[\d+:(0x[0-9a-f]+)\]/.exec(mainLines.find((line) => /Mark-Compact|Scavenge/.test(line)) ?? "")?.[1];
    const ofMain = mainLines.filter((line) => mainIsolate !== undefined && line.includes(mainIsolate));
    return {
      fullCollections: ofMain.filter((line) => /Mark-Compact/.test(line)).length,
      backgroundTasks: ofMain.filter((line) => /Starting major concurrent marking task/.test(line)).length,
      threadNewSpaceMb: Number(/THREAD_NEW_SPACE (\d+)/.exec(run.stdout)?.[1]) / 1e6,
    };
  }

  test("stepwise: no marking on background threads between full collections, and a thread's young generation halved", () => {
    const stepwise = collectedAfterTuning("stepwise");
    const concurrent = collectedAfterTuning("concurrent");
    expect(stepwise.fullCollections).toBeGreaterThanOrEqual(2);
    expect(concurrent.fullCollections).toBeGreaterThanOrEqual(2);
    // Stepwise, background tasks mark only inside a collection's final pause (at most one start each);
    // concurrently, they start again and again while the heap is marked.
    expect(stepwise.backgroundTasks).toBeLessThanOrEqual(stepwise.fullCollections);
    expect(concurrent.backgroundTasks).toBeGreaterThan(2 * concurrent.fullCollections);
    // Two semi-spaces: 2 × 8 MB against V8's 2 × 16 MB.
    expect(stepwise.threadNewSpaceMb).toBeLessThanOrEqual(2 * STEPWISE_THREAD_SEMI_SPACE_MB * 1.1);
    expect(concurrent.threadNewSpaceMb).toBeGreaterThan(2 * STEPWISE_THREAD_SEMI_SPACE_MB * 1.5);
  }, 120_000);
});
