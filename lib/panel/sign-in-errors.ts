/**
 * What the login form is told when sign-in fails: Auth.js passes the message `authorize` threw as
 * `error`, and `CredentialsSignin` when it returned null.
 */
const SIGN_IN_ERROR = {
  badCredentials: "CredentialsSignin",
  /** Followed by `:<seconds until the next attempt is allowed>`. */
  throttled: "TooManyAttempts",
} as const;

export function throttledSignInError(retryAfterS: number): string {
  return `${SIGN_IN_ERROR.throttled}:${Math.max(1, Math.ceil(retryAfterS))}`;
}

function waitText(seconds: number): string {
  if (seconds < 60) return seconds === 1 ? "1 second" : `${seconds} seconds`;
  const minutes = Math.ceil(seconds / 60);
  return minutes === 1 ? "1 minute" : `${minutes} minutes`;
}

/** The sentence the login form shows for Auth.js's `error`. */
export function signInErrorMessage(error: string | null | undefined): string {
  if (error === SIGN_IN_ERROR.badCredentials) return "Incorrect email or password.";
  const throttled = new RegExp(`^${SIGN_IN_ERROR.throttled}:(\\d+)$`).exec(error ?? "");
  if (throttled) return `Too many failed sign-in attempts. Try again in ${waitText(Number(throttled[1]))}.`;
  return "Sign-in failed. Please try again.";
}
