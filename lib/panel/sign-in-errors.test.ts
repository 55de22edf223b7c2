import { describe, expect, it } from "vitest";
import { signInErrorMessage, throttledSignInError } from "./sign-in-errors";

describe("signInErrorMessage", () => {
  it("wrong credentials", () => {
    expect(signInErrorMessage("CredentialsSignin")).toBe("Incorrect email or password.");
  });

  it("throttled: says so and how long to wait", () => {
    expect(signInErrorMessage(throttledSignInError(840.2))).toBe(
      "Too many failed sign-in attempts. Try again in 15 minutes.",
    );
    expect(signInErrorMessage(throttledSignInError(60))).toBe(
      "Too many failed sign-in attempts. Try again in 1 minute.",
    );
    expect(signInErrorMessage(throttledSignInError(12))).toBe(
      "Too many failed sign-in attempts. Try again in 12 seconds.",
    );
    expect(signInErrorMessage(throttledSignInError(0))).toBe(
      "Too many failed sign-in attempts. Try again in 1 second.",
    );
  });

  it("anything else is a generic failure", () => {
    for (const e of [undefined, null, "", "Configuration", "TooManyAttempts", "TooManyAttempts:x"]) {
      expect(signInErrorMessage(e)).toBe("Sign-in failed. Please try again.");
    }
  });
});
