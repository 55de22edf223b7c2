import { describe, expect, it } from "vitest";
import { isLoopbackAddress } from "./loopback-peer";

describe("isLoopbackAddress", () => {
  it.each(["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1", "[::1]", "::1%lo"])("%s is loopback", (a) => {
    expect(isLoopbackAddress(a)).toBe(true);
  });
  it.each(["10.0.0.1", "192.168.1.5", "::ffff:10.0.0.1", "fe80::1", "::", "0.0.0.0", "128.0.0.1", "127.0.0.1.evil"])(
    "%s is not",
    (a) => {
      expect(isLoopbackAddress(a)).toBe(false);
    },
  );
});
