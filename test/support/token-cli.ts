import { type CliRun, runCli } from "./cli";

/** `provgraph token <args>` (the real command; `npm run token -- <args>` with via "npm") with `env`. Call ensureBuilt() first. */
export async function runTokenCli(args: string[], env: Record<string, string>, via: "npm" | "bin" = "bin"): Promise<CliRun> {
  if (via === "bin") return runCli(["token", ...args], env);
  const { spawn } = await import("node:child_process");
  const path = await import("node:path");
  return new Promise((resolve) => {
    const child = spawn("npm", ["run", "-s", "token", "--", ...args], { cwd: path.join(__dirname, "..", ".."), env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}
