import { describe, expect, it } from "vitest";
import { addressKey, resolveClientAddress } from "./client-ip";

describe("addressKey", () => {
  it("IPv4 as is, IPv4-mapped IPv6 as IPv4", () => {
    expect(addressKey("203.0.113.7")).toBe("203.0.113.7");
    expect(addressKey("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(addressKey("::FFFF:127.0.0.1")).toBe("127.0.0.1");
  });

  it("IPv6 by its /64, however it is written", () => {
    expect(addressKey("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:0db8:0001:0002:ffff:0:0:9")).toBe("2001:db8:1:2::/64");
    expect(addressKey("[2001:db8:1:2::9]")).toBe("2001:db8:1:2::/64");
    expect(addressKey("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
    expect(addressKey("2001:db8::")).toBe("2001:db8:0:0::/64");
  });

  it("null for what is not an address", () => {
    for (const v of [null, undefined, "", "unknown", "evil.example", "1.2.3", "::ffff:1.2.3.999"])
      expect(addressKey(v)).toBeNull();
  });
});

describe("resolveClientAddress", () => {
  it("without trusted proxies, the socket's address whatever X-Forwarded-For says", () => {
    expect(resolveClientAddress({ socket: "198.51.100.9", forwardedFor: "203.0.113.1", trustedProxies: 0 })).toBe(
      "198.51.100.9",
    );
    expect(resolveClientAddress({ socket: null, forwardedFor: "203.0.113.1", trustedProxies: 0 })).toBeNull();
  });

  it("with N trusted proxies, the Nth entry from the right; forged entries to its left are ignored", () => {
    const xff = "6.6.6.6, 203.0.113.1, 10.0.0.2";
    expect(resolveClientAddress({ socket: "10.0.0.3", forwardedFor: xff, trustedProxies: 1 })).toBe("10.0.0.2");
    expect(resolveClientAddress({ socket: "10.0.0.3", forwardedFor: xff, trustedProxies: 2 })).toBe("203.0.113.1");
    expect(resolveClientAddress({ socket: "10.0.0.3", forwardedFor: "203.0.113.1", trustedProxies: 3 })).toBe(
      "203.0.113.1",
    );
  });

  it("with trusted proxies but no usable header, the socket's address", () => {
    expect(resolveClientAddress({ socket: "10.0.0.3", forwardedFor: undefined, trustedProxies: 1 })).toBe("10.0.0.3");
    expect(resolveClientAddress({ socket: "10.0.0.3", forwardedFor: "garbage", trustedProxies: 1 })).toBe("10.0.0.3");
  });
});
