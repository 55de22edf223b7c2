import { expect, test } from "./fixtures";

/**
 * The panel journey: drop three files on a new collection, watch each upload's progress and status
 * turn ready without reloading, try the test retrieval box, delete one.
 */
test("drop three files into a collection, watch them turn ready, test retrieval, delete one", async ({
  tenant,
  loginPage,
  knowledgePage,
  page,
}) => {
  test.setTimeout(90_000);
  const tag = Date.now().toString(36);
  await loginPage.signInAs(tenant);
  await knowledgePage.goto();
  await knowledgePage.createCollection(`Manuals ${tag}`);

  const files = [
    { name: `pumps-${tag}.txt`, text: "Pump P-7 is serviced every 90 days.\n\nIts seals are replaced yearly." },
    { name: `valves-${tag}.md`, text: "# Valves\n\nThe Zephyr-9 valve is calibrated every 17 days." },
    { name: `safety-${tag}.txt`, text: "Hard hats are required in bay 4." },
  ];
  await knowledgePage.dropFiles(files, "plant/north");
  // Each file gets its own progress bar while it uploads.
  await expect(page.getByTestId("upload-item")).not.toHaveCount(0);

  for (const f of files)
    await expect(knowledgePage.document(f.name)).toHaveAttribute("data-status", "ready", { timeout: 60_000 });
  await expect(page.getByTestId("folder-row")).toContainText("plant/north");
  await expect(page.getByTestId("upload-item").filter({ has: page.locator('[data-state="error"]') })).toHaveCount(0);

  // The test retrieval box: ranked chunks with their score and source, best first.
  const results = await knowledgePage.search("How often is the Zephyr-9 valve calibrated?");
  await expect(results.getByTestId("search-hit").first()).toContainText("17 days");
  await expect(results.getByTestId("search-hit").first()).toContainText(files[1]!.name);
  // A relevance a person can read (0 to 1, best first) and each ranker's place.
  const relevances = await results
    .getByTestId("relevance")
    .evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-value"))));
  expect(relevances.length).toBeGreaterThan(0);
  expect(relevances[0]).toBeGreaterThan(0.5);
  expect(relevances.every((r) => r > 0 && r <= 1)).toBe(true);
  expect([...relevances].sort((a, b) => b - a)).toEqual(relevances);
  await expect(results.getByTestId("search-hit-rankers").first()).toContainText("BM25 #1");

  await knowledgePage.document(files[2]!.name).getByTestId("delete-document").click();
  await expect(knowledgePage.document(files[2]!.name)).toHaveCount(0);
  await expect(knowledgePage.document(files[0]!.name)).toBeVisible();
});
