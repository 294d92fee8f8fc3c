import { spawn } from "node:child_process";
import path from "node:path";

const ROOT = path.join(__dirname, "..", "..");

/** Runs `npm run -s token -- <args>` (or the script directly through tsx: faster) with `env`. */
export function runTokenCli(args: string[], env: Record<string, string>, via: "npm" | "tsx" = "tsx"): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const command = via === "npm" ? "npm" : process.execPath;
  const argv = via === "npm" ? ["run", "-s", "token", "--", ...args] : ["--import", "tsx", "scripts/token.ts", ...args];
  return new Promise((resolve) => {
    const child = spawn(command, argv, { cwd: ROOT, env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}
