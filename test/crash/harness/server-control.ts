import { type ServerProcess, startServer } from "../../support/server-process";

/**
 * The server under test as a real process (src/main.ts through tsx), restartable on one database.
 * `kill()` is SIGKILL: no drain, no shutdown hook, the database is left as the instant found it.
 */
export class ServerControl {
  private server: ServerProcess | null = null;
  /** Exits the harness did not cause (a crash of the server itself), with the tail of its output. */
  readonly unexpectedExits: string[] = [];
  private generation = 0;

  constructor(private readonly env: Record<string, string>) {}

  /** The server's origin (http://127.0.0.1:<port>), null while it is down. */
  get url(): string | null {
    return this.server ? new URL(this.server.url).origin : null;
  }

  async start(): Promise<string> {
    const generation = ++this.generation;
    const server = await startServer({ PORT: "0", ...this.env }, 60_000);
    this.server = server;
    server.exited.then((code) => {
      if (this.generation === generation && this.server === server) {
        this.unexpectedExits.push(`exit ${code}: ${server.output().slice(-2000)}`);
        this.server = null;
      }
    });
    return new URL(server.url).origin;
  }

  /** SIGKILL, and wait until the process is gone. */
  async kill(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.generation += 1;
    this.server = null;
    server.child.kill("SIGKILL");
    await server.exited;
  }

  /** A server that died by itself is started again. */
  async ensureRunning(): Promise<void> {
    if (!this.server) await this.start();
  }

  /** SIGTERM (drain), at the end of a run. */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.generation += 1;
    this.server = null;
    server.child.kill("SIGTERM");
    const timer = setTimeout(() => server.child.kill("SIGKILL"), 15_000);
    await server.exited;
    clearTimeout(timer);
  }
}
