/** Where a command writes: results on stdout, diagnostics and progress on stderr. */
export interface Output {
  stdout(line: string): void;
  stderr(line: string): void;
  /** A progress bar on stderr when it is a terminal; otherwise silent (scripts and logs get the summary only). */
  progress(total: number, unit: string): Progress;
}

export interface Progress {
  advance(by: number): void;
  stop(): void;
}

const SILENT: Progress = { advance: () => undefined, stop: () => undefined };

export const processOutput: Output = {
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
  progress(total, unit) {
    if (!process.stderr.isTTY || total === 0) return SILENT;
    // Loaded only when a bar is drawn.
    const { SingleBar, Presets } = require("cli-progress") as typeof import("cli-progress");
    const bar = new SingleBar({ stream: process.stderr, format: `{bar} {value}/{total} ${unit} | {percentage}% | {eta_formatted} left`, hideCursor: true, clearOnComplete: true }, Presets.shades_classic);
    bar.start(total, 0);
    return { advance: (by) => bar.increment(by), stop: () => bar.stop() };
  },
};
