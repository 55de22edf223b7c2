import { createTenant, expect, test } from "./fixtures";
import { PanelFrame, VIEWPORTS, type ViewportName } from "./pages/panel-frame";
import { seedTenant } from "./support/seed-tenant";

/**
 * Every panel page at a desktop and a 390 px phone width, saved to test-results/screenshots/ for a
 * person to read, each checked for sideways overflow on the phone.
 */
const PAGES: { name: string; path: string; heading: string | RegExp }[] = [
  { name: "playground", path: "/playground", heading: "Playground" },
  { name: "models", path: "/models", heading: "Models" },
  { name: "profiles", path: "/profiles", heading: "Profiles" },
  { name: "tools", path: "/tools", heading: "Tools" },
  { name: "knowledge", path: "/knowledge", heading: "Knowledge" },
  { name: "guardrails", path: "/guardrails", heading: "Guardrails" },
  { name: "threads", path: "/threads", heading: "Threads" },
  { name: "agents", path: "/agents", heading: "Agents" },
  { name: "webhooks", path: "/webhooks", heading: "Webhooks" },
  { name: "widgets", path: "/widgets", heading: "Widgets" },
  { name: "sdk-keys", path: "/sdk-keys", heading: "API keys" },
  { name: "usage", path: "/usage", heading: "Usage" },
];

/** Pages whose lists are empty for a new company. */
const EMPTY_PAGES = [
  "profiles",
  "tools",
  "knowledge",
  "guardrails",
  "threads",
  "agents",
  "webhooks",
  "sdk-keys",
  "usage",
];

async function shootAll(frame: PanelFrame, pages: typeof PAGES, suffix: string): Promise<void> {
  for (const viewport of Object.keys(VIEWPORTS) as ViewportName[]) {
    await frame.page.setViewportSize(VIEWPORTS[viewport]);
    for (const p of pages) {
      await test.step(`${p.name} at ${viewport}`, async () => {
        await frame.open(p.path, p.heading);
        await frame.screenshot(`${p.name}${suffix}-${viewport}`);
        if (viewport !== "phone") return;
        const widths = await frame.overflow();
        expect
          .soft(widths.document, `${p.name}: the page scrolls sideways on a phone`)
          .toBeLessThanOrEqual(widths.viewport);
      });
    }
  }
}

test("every panel page with a little data, at desktop and phone widths", async ({
  page,
  request,
  loginPage,
  webhooksPage,
  toolsPage,
}) => {
  test.setTimeout(240_000);
  const tenant = await createTenant({ creditsOt: 50 });
  const seeded = await seedTenant(request, tenant);
  await loginPage.signInAs(tenant);
  await webhooksPage.createAgent("Order desk", seeded.profileName, "orders.*");
  const url = await webhooksPage.createEndpoint("Order desk", "Shop orders");
  const sent = await request.post(url, { data: { event_topic: "orders.created", payload: { order: 42 } } });
  expect(sent.status()).toBe(202);

  const frame = new PanelFrame(page);
  await shootAll(frame, PAGES, "");
  // A thread opened, with its run's steps.
  await page.setViewportSize(VIEWPORTS.desktop);
  await frame.open(`/threads?thread=${seeded.threadId}`, "Threads");
  await frame.screenshot("threads-detail-desktop");
  // The tool editor's test run: its outcome in view without scrolling.
  for (const viewport of Object.keys(VIEWPORTS) as ViewportName[]) {
    await page.setViewportSize(VIEWPORTS[viewport]);
    await toolsPage.goto();
    await toolsPage.row("add_numbers").getByTestId("edit-tool").click();
    const result = await toolsPage.testRun('{"a": 2, "b": 3}');
    await expect(result.getByTestId("tool-run-value")).toHaveText("5");
    await expect(result).toBeInViewport();
    await frame.screenshot(`tools-try-${viewport}`, false);
    await page.keyboard.press("Escape");
  }
});

test("the empty lists of a new company, at desktop and phone widths", async ({ page, loginPage }) => {
  test.setTimeout(120_000);
  const tenant = await createTenant({ creditsOt: 0 });
  await loginPage.signInAs(tenant);
  await shootAll(
    new PanelFrame(page),
    PAGES.filter((p) => EMPTY_PAGES.includes(p.name)),
    "-empty",
  );
});

test("the sign-in page and the 404 page, at desktop and phone widths", async ({ page }) => {
  const frame = new PanelFrame(page);
  for (const viewport of Object.keys(VIEWPORTS) as ViewportName[]) {
    await page.setViewportSize(VIEWPORTS[viewport]);
    for (const [name, path, heading] of [
      ["login", "/login", "Sign in to Cockpit Gateway"],
      ["404", "/no-such-page", "Page not found"],
    ] as const) {
      await frame.open(path, heading);
      await frame.screenshot(`${name}-${viewport}`);
      if (viewport !== "phone") continue;
      const widths = await frame.overflow();
      expect
        .soft(widths.document, `${name}: the page scrolls sideways on a phone`)
        .toBeLessThanOrEqual(widths.viewport);
    }
  }
});
