import "server-only";
import { parseArgs } from "node:util";
import { z } from "zod";
import type { Db } from "@/db/client";
import { ScopeList, RateLimitPerMinute } from "@/lib/keys/schemas";
import { getBalance, grantCredits, microToOt, otToMicro } from "@/lib/billing";
import { AgentName, createAgent, TopicPatterns } from "@/lib/agents";
import { CompanyName, createCompany, getCompany, listCompanies } from "@/lib/companies";
import { AppError } from "@/lib/errors";
import { createKey, revokeKey } from "@/lib/keys";
import { getKeyById } from "@/lib/keys/get-key-by-id";
import { OtPerM, resetModelPrice, setModelPrice, type Prices } from "@/lib/models";
import { setupFirstAdmin } from "@/lib/setup";
import { importOpenAiThreads } from "@/lib/threads/import-openai-threads";
import { createUser, Email, listUsers, Password, setPassword } from "@/lib/users";
import { createWebhook, triggerPath, WebhookName } from "@/lib/webhooks";
import { fileLines } from "./file-lines";

type Flags = Record<string, string | undefined>;

/** Parses `--name value` flags; `switches` are flags without a value, read as "true" when given. */
function flags(argv: string[], names: string[], switches: string[] = []): Flags {
  const { values } = parseArgs({
    args: argv,
    options: Object.fromEntries([
      ...names.map((n) => [n, { type: "string" as const }]),
      ...switches.map((n) => [n, { type: "boolean" as const }]),
    ]),
    strict: true,
    allowPositionals: false,
  });
  return Object.fromEntries(
    Object.entries(values).map(([k, v]) => [k, v === true ? "true" : v === false ? undefined : v]),
  ) as Flags;
}

function need(f: Flags, name: string): string {
  const v = f[name];
  if (v === undefined || v === "") throw new AppError("invalid_request", `--${name} is required`, { param: name });
  return v;
}

const PRICE_FLAGS = { input: "input", cached_input: "cached-input", output: "output" } as const;

/** A price flag in O₮ per 1M tokens: a plain decimal number (no hex, no exponent, never negative). */
function otPerM(f: Flags, name: string): number {
  const raw = need(f, name).trim();
  const parsed = OtPerM.safeParse(/^(\d+(\.\d*)?|\.\d+)$/.test(raw) ? Number(raw) : Number.NaN);
  if (!parsed.success) {
    throw new AppError(
      "invalid_request",
      `--${name} must be a price in O₮ per 1M tokens from 0 to 1000000, got '${raw}'`,
      { param: name },
    );
  }
  return parsed.data;
}

const toPricing = (p: Prices) => ({
  input: microToOt(p.inputMicroPerM),
  cached_input: microToOt(p.cachedInputMicroPerM),
  output: microToOt(p.outputMicroPerM),
});

const commands: Record<string, (db: Db, argv: string[]) => Promise<Record<string, unknown>>> = {
  "company create": async (db, argv) => {
    const f = flags(argv, ["name"]);
    const company = await createCompany(db, { name: CompanyName.parse(need(f, "name")) });
    return { company_id: company.id, company_name: company.name };
  },
  "company list": async (db, argv) => {
    flags(argv, []);
    const rows = await listCompanies(db);
    return {
      object: "list",
      data: rows.map((c) => ({ company_id: c.id, company_name: c.name, balance_ot: microToOt(c.balanceMicro) })),
    };
  },
  "key create": async (db, argv) => {
    const f = flags(argv, ["company", "scopes", "name", "rpm", "expires"]);
    const company = await getCompany(db, { companyId: need(f, "company") });
    const scopes = ScopeList.parse(
      need(f, "scopes")
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    );
    const rpm = f.rpm === undefined ? undefined : RateLimitPerMinute.parse(Number(f.rpm));
    const expiresAt = f.expires === undefined ? null : z.iso.datetime({ offset: true }).parse(f.expires);
    const { key, secret } = await createKey(db, {
      companyId: company.id,
      name: f.name ?? "CLI key",
      scopes,
      rateLimitPerMinute: rpm,
      expiresAt: expiresAt ? new Date(expiresAt) : null,
    });
    return {
      id: key.id,
      key: secret,
      prefix: key.prefix,
      scopes: key.scopes,
      rate_limit_per_minute: key.rateLimitPerMinute,
    };
  },
  "key revoke": async (db, argv) => {
    const f = flags(argv, ["id"]);
    const key = await getKeyById(db, { keyId: need(f, "id") });
    await revokeKey(db, { companyId: key.companyId, keyId: key.id });
    return { id: key.id, revoked: true };
  },
  "credits grant": async (db, argv) => {
    const f = flags(argv, ["company", "amount", "note"]);
    const amount = z.coerce.number().positive().finite().parse(need(f, "amount"));
    const companyId = need(f, "company");
    await grantCredits(db, {
      companyId,
      amountMicro: otToMicro(amount),
      entry: { source: "cli", metadata: f.note ? { note: f.note } : {} },
    });
    const { balanceMicro } = await getBalance(db, { companyId });
    return { company_id: companyId, balance_ot: microToOt(balanceMicro) };
  },
  setup: async (db, argv) => {
    const f = flags(argv, ["email", "password", "company"]);
    const admin = await setupFirstAdmin(db, {
      email: Email.parse(need(f, "email")),
      password: Password.parse(need(f, "password")),
      companyId: f.company,
    });
    return {
      company_id: admin.companyId,
      user_id: admin.user.id,
      email: admin.user.email,
      ...(admin.key ? { key: admin.key } : {}),
    };
  },
  "user create": async (db, argv) => {
    const f = flags(argv, ["company", "email", "password"]);
    const company = await getCompany(db, { companyId: need(f, "company") });
    const user = await createUser(db, {
      companyId: company.id,
      email: Email.parse(need(f, "email")),
      password: Password.parse(need(f, "password")),
    });
    return { user_id: user.id, email: user.email };
  },
  "user list": async (db, argv) => {
    const f = flags(argv, ["company"]);
    const company = await getCompany(db, { companyId: need(f, "company") });
    const rows = await listUsers(db, { companyId: company.id });
    return { object: "list", data: rows.map((u) => ({ user_id: u.id, email: u.email })) };
  },
  "user password": async (db, argv) => {
    const f = flags(argv, ["email", "password"]);
    const user = await setPassword(db, {
      email: need(f, "email"),
      password: Password.parse(need(f, "password")),
    });
    return { user_id: user.id, email: user.email };
  },
  "agent create": async (db, argv) => {
    const f = flags(argv, ["company", "profile", "name", "topics"]);
    const company = await getCompany(db, { companyId: need(f, "company") });
    const topics = TopicPatterns.parse(
      (f.topics ?? "")
        .split(",")
        .map((t) => t.trim())
        .filter(Boolean),
    );
    const agent = await createAgent(db, {
      companyId: company.id,
      input: { name: AgentName.parse(need(f, "name")), conductor_profile_id: need(f, "profile"), topics },
    });
    return { agent_id: agent.id, conductor_profile_id: agent.conductorProfileId };
  },
  "webhook create": async (db, argv) => {
    const f = flags(argv, ["company", "agent", "name"]);
    const company = await getCompany(db, { companyId: need(f, "company") });
    const name = f.name === undefined ? null : WebhookName.parse(f.name);
    const { webhook, secret } = await createWebhook(db, { companyId: company.id, agentId: f.agent ?? null, name });
    return { webhook_id: webhook.id, secret, url: triggerPath(company.id, secret) };
  },
  "model price": async (db, argv) => {
    const f = flags(argv, ["company", "model", ...Object.values(PRICE_FLAGS)], ["reset"]);
    const companyId = need(f, "company");
    const slug = need(f, "model");
    const given = Object.values(PRICE_FLAGS).filter((n) => f[n] !== undefined);
    let prices: Prices;
    if (f.reset) {
      if (given.length > 0)
        throw new AppError("invalid_request", `--reset takes no prices (got --${given.join(", --")})`, {
          param: "reset",
        });
      prices = await resetModelPrice(db, { companyId, slug });
    } else {
      if (given.length === 0)
        throw new AppError(
          "invalid_request",
          "give --input, --cached-input and --output (O₮ per 1M tokens), or --reset",
          { param: "input" },
        );
      const input = {
        input: otPerM(f, PRICE_FLAGS.input),
        cached_input: otPerM(f, PRICE_FLAGS.cached_input),
        output: otPerM(f, PRICE_FLAGS.output),
      };
      prices = await setModelPrice(db, { companyId, slug, prices: input });
    }
    return { company_id: companyId, model: slug, pricing: toPricing(prices) };
  },
  "import openai-threads": async (db, argv) => {
    const f = flags(argv, ["company", "file"]);
    const company = await getCompany(db, { companyId: need(f, "company") });
    const lines = await fileLines(need(f, "file"));
    const counts = await importOpenAiThreads(db, { companyId: company.id, lines });
    return { conversations: counts.conversations, messages: counts.messages, skipped: counts.skipped };
  },
};

export const ADMIN_USAGE = `usage: npm run admin -- <command> [flags]
  setup --email E --password P [--company ID]   (the first run without the setup link: the first admin, and the demo company on an empty database)
  company create --name NAME
  company list
  key create --company ID --scopes chat,view,action,admin [--name N] [--rpm N] [--expires ISO]
  key revoke --id KEY_ID
  credits grant --company ID --amount OT [--note TEXT]
  user create --company ID --email E --password P
  user list --company ID
  user password --email E --password P   (also lifts the email's sign-in lockout)
  agent create --company ID --profile PROFILE_ID --name N [--topics a.b,c.*]
  webhook create --company ID [--agent AGENT_ID] [--name N]
  model price --company ID --model SLUG (--input OT --cached-input OT --output OT | --reset)
  import openai-threads --company ID --file F   (F: one {"thread","messages"} a line, from OpenAI's Assistants API)`;

/** Runs one operator command; returns the JSON object to print. Throws on any error. */
export async function runAdminCommand(db: Db, argv: string[]): Promise<Record<string, unknown>> {
  // Two words (`key create`) or one (`setup`).
  const two = argv.slice(0, 2).join(" ");
  const [name, rest] = Object.hasOwn(commands, two) ? [two, argv.slice(2)] : [argv[0] ?? "", argv.slice(1)];
  const command = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!command) {
    throw new Error(`unknown command '${two}'\n${ADMIN_USAGE}`);
  }
  return command(db, rest);
}
