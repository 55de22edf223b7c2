// Run by lib/multimodal/ocr.test.ts in a child process with test/support/no-network.cjs preloaded.
import { ocrImage, terminateOcr } from "../../lib/multimodal/ocr";
import { renderTextPng } from "./png";

void (async () => {
  const { text } = await ocrImage(renderTextPng(["HELLO WORLD"]).png);
  process.stdout.write(JSON.stringify({ text }));
  await terminateOcr();
})();
