import { execFile } from "node:child_process";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

/**
 * Runs the real operator CLI (`npm run admin -- …`, CONTRACT 3) with the inherited env, so tests
 * provision data exactly as an operator would, against the database the server uses.
 */
export async function admin<T extends Record<string, unknown>>(...args: string[]): Promise<T> {
  try {
    const { stdout } = await execFileAsync("npm", ["run", "admin", "--", ...args], {
      env: process.env,
      timeout: 60_000,
    });
    return JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as T;
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: string; stderr?: string };
    throw new Error(`npm run admin -- ${args.join(" ")} failed\nstdout: ${stdout ?? ""}\nstderr: ${stderr ?? ""}`, {
      cause: err,
    });
  }
}
