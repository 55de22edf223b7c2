import { describe, expect, it } from "vitest";
import { readyBanner } from "./ready-banner";

const base = { origin: "http://localhost:3000", setupExpiresInMin: 60 };
const lastLine = (text: string) => text.trimEnd().split("\n").at(-1)!.trim();

describe("npm start's last block", () => {
  it("on the first run: the key, then the setup link as the last line", () => {
    const text = readyBanner({ ...base, demoKey: "sk-cp-abc", demoCompanyId: "co_1", setupToken: "T0k" });
    expect(text).toContain("SDK key   sk-cp-abc");
    expect(lastLine(text)).toBe("http://localhost:3000/setup?token=T0k");
  });

  it("on a restart while setup is pending: a new link, and how to make a key", () => {
    const text = readyBanner({ ...base, demoKey: null, demoCompanyId: "co_1", setupToken: "N3w" });
    expect(text).not.toContain("sk-cp-");
    expect(text).toContain("npm run admin -- key create --company co_1");
    expect(lastLine(text)).toBe("http://localhost:3000/setup?token=N3w");
  });

  it("once set up: where to sign in", () => {
    const text = readyBanner({ ...base, demoKey: null, demoCompanyId: null, setupToken: null });
    expect(text).not.toContain("setup?token");
    expect(lastLine(text)).toBe("Sign in to the panel at http://localhost:3000/login");
  });
});
