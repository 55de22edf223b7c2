import { expect, test } from "./fixtures";
import { parseOt } from "./pages/usage-page";

test("a usage event recorded through POST /v1/usage shows up on the usage page", async ({
  request,
  tenant,
  cliKey,
  loginPage,
  usagePage,
}) => {
  const { key } = await cliKey(["chat"]);
  await loginPage.signInAs(tenant);
  await usagePage.goto();
  const before = await usagePage.balanceOt();
  expect(before).toBeGreaterThanOrEqual(12.5);

  // voice_call bills 1 O₮ per second (SPEC §2): 12.5 s → 12.5 O₮.
  const res = await request.post("/v1/usage", {
    headers: { Authorization: `Bearer ${key}` },
    data: { source: "voice_call", duration_s: 12.5, direction: "outbound" },
  });
  expect(res.status()).toBe(201);
  const event = (await res.json()) as { cost_ot: number; balance_ot: number };
  expect(event).toMatchObject({ source: "voice_call", cost_ot: 12.5, balance_ot: before - 12.5 });

  await usagePage.reload();
  expect(await usagePage.balanceOt()).toBe(before - 12.5);
  // 1 O₮ = $0.001.
  expect(parseOt((await usagePage.balanceUsd.innerText()).replace(/^≈ \$/, ""))).toBeCloseTo(
    (before - 12.5) * 0.001,
    4,
  );

  // Newest first: this test's debit is the top row.
  const row = usagePage.rows.first();
  await expect(row).toHaveAttribute("data-source", "voice_call");
  await expect(row.getByTestId("ledger-source")).toHaveText("voice_call");
  await expect(row.getByTestId("ledger-amount")).toHaveText("\u221212.5");
  expect(parseOt(await row.getByTestId("ledger-balance-after").innerText())).toBe(before - 12.5);
  await expect(row).toContainText("12.5 s · outbound");
  await expect(usagePage.rowsFor("cli").getByTestId("ledger-amount")).toContainText(["+100"]);

  const todaysBar = usagePage
    .chartBars("voice_call")
    .and(usagePage.page.locator(`[data-day="${new Date().toISOString().slice(0, 10)}"]`));
  await expect(todaysBar).toHaveCount(1);
  expect(Number(await todaysBar.getAttribute("data-ot"))).toBeGreaterThanOrEqual(12.5);

  await usagePage.filterBySource("whisper");
  await expect(usagePage.rowsFor("voice_call")).toHaveCount(0);
  await usagePage.filterBySource("voice_call");
  await expect(usagePage.rows.first()).toHaveAttribute("data-source", "voice_call");
  await expect(usagePage.rowsFor("cli")).toHaveCount(0);
});
