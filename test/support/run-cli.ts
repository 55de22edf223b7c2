import { spawnSync } from "node:child_process";

/** Runs the real operator CLI as users do (`npm run admin -- …`); returns the parsed stdout. */
export function runCli(args: string[], env: NodeJS.ProcessEnv = process.env) {
  const res = spawnSync("npm", ["run", "admin", "--", ...args], { env, encoding: "utf8", timeout: 60_000 });
  const stdout = res.stdout;
  let json: any = null;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = null;
  }
  return { code: res.status, stdout, stderr: res.stderr, json };
}
