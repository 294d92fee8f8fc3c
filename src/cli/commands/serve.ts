import { exitOnStartupFailure, serve as runServer } from "../../serve";

/** `provgraph serve`: the server, as `npm start` runs it; --port and --host stand for PORT and HOST. */
export async function serve(options: { port?: string; host?: string }): Promise<"running"> {
  // as npm start sets it (MALLOC_ARENA_MAX must be set before node starts: the systemd unit and the Dockerfile do)
  process.env.NODE_ENV ??= "production";
  const env = { ...process.env, ...(options.port !== undefined ? { PORT: options.port } : {}), ...(options.host !== undefined ? { HOST: options.host } : {}) };
  await runServer(env).catch(exitOnStartupFailure);
  return "running";
}
