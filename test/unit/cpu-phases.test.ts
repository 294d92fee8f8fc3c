/** The CPU budget's marks (src/cpu-phases.ts): off unless PROVGRAPH_CPU_PHASES=1; on, CPU goes to the phase it was spent in. */
describe("CPU phases", () => {
  const load = (enabled: boolean): typeof import("../../src/cpu-phases") => {
    const previous = process.env.PROVGRAPH_CPU_PHASES;
    if (enabled) process.env.PROVGRAPH_CPU_PHASES = "1";
    else delete process.env.PROVGRAPH_CPU_PHASES;
    let loaded!: typeof import("../../src/cpu-phases");
    jest.isolateModules(() => {
      loaded = require("../../src/cpu-phases");
    });
    if (previous === undefined) delete process.env.PROVGRAPH_CPU_PHASES;
    else process.env.PROVGRAPH_CPU_PHASES = previous;
    return loaded;
  };
  const burn = (ms: number) => {
    const until = process.cpuUsage().user + ms * 1000;
    while (process.cpuUsage().user < until);
  };

  test("on: the CPU spent inside a phase is charged to it, nested statements to sql, the commit's own statements to the commit", async () => {
    const phases = load(true);
    phases.takeCpuPhaseTotals();
    phases.markCpuPhase("core");
    burn(20);
    phases.inSqlPhase(() => burn(10));
    await phases.inCpuPhase("commit", async () => phases.inSqlPhase(() => burn(10)));
    phases.markCpuPhase("idle");
    const { micros, entries } = phases.takeCpuPhaseTotals();
    expect(micros.core).toBeGreaterThanOrEqual(20_000);
    expect(micros.sql).toBeGreaterThanOrEqual(10_000);
    expect(micros.commit).toBeGreaterThanOrEqual(10_000);
    expect(entries.sql).toBe(1);
    expect(entries.commit).toBe(1);
  });

  test("off (production): marks cost nothing and record nothing", () => {
    const phases = load(false);
    expect(phases.cpuPhasesEnabled).toBe(false);
    phases.markCpuPhase("core");
    burn(5);
    expect(phases.inSqlPhase(() => 42)).toBe(42);
    const { micros } = phases.takeCpuPhaseTotals();
    expect(Object.values(micros).every((value) => value === 0)).toBe(true);
  });
});
