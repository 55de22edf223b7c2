// @ts-check
/**
 * Removes secrets from any log line (pino's, and via scripts/server/main.mjs everything on
 * stdout/stderr); plain JS for that script. Removed: trigger secrets in
 * `/v1/public/triggers/{company}/{secret}`, secret-named query values, auth and cookie headers,
 * `Bearer`/`Basic` credentials, URL passwords, and `sk-…`, `whs_`/`whsec_` and JWT shapes.
 */
const CENSOR = "[redacted]";

/** @type {[RegExp, string][]} */
const RULES = [
  // A route pattern's placeholder (`[secret]`, `{secret}`) is not a secret.
  [/(\/v1\/public\/triggers\/[^/\s"'?#\\]*\/)(?![[{])[^/\s"'?#&\\]+/gi, `$1${CENSOR}`],
  [/(%2Fv1%2Fpublic%2Ftriggers%2F[^\s"'?#&%]*%2F)[^\s"'?#&]+/gi, `$1${CENSOR}`],
  [
    /([?&;][\w.[\]-]{0,64}?(?:key|token|secret|passw|pwd|signature|sig|auth|credential|session|code)[\w.[\]-]{0,64}=)[^&\s"'#;]*/gi,
    `$1${CENSOR}`,
  ],
  [
    /((?:authorization|x-api-key|api-key|x-goog-api-key|cookie|set-cookie)["']?\s*[:=]\s*["']?)[^"'\r\n]+/gi,
    `$1${CENSOR}`,
  ],
  [/\b(Bearer)\s+[\w.~+/=-]{8,}/gi, `$1 ${CENSOR}`],
  [/\b(Basic)\s+[A-Za-z0-9+/=]{8,}/g, `$1 ${CENSOR}`],
  [/(\b[a-z][\w+.-]{0,30}:\/\/[^\s/:@"']*:)[^\s/@"']+@/gi, `$1${CENSOR}@`],
  [/\bsk-[\w-]{16,}/g, `sk-${CENSOR}`],
  [/\bwhs(?:ec)?_[\w+/=-]{16,}/g, `whs_${CENSOR}`],
  [/(?<![\w-])eyJ[\w-]{4,}\.[\w-]{4,}\.[\w-]*/g, `jwt-${CENSOR}`],
];

/** Cheap test first: most lines hold none of the markers the rules need. */
const MARKERS = /:\/\/[^\s/]*@|triggers|[?&;][\w.[\]-]*=|authori|api-key|cookie|bearer|basic|sk-|whs|eyJ/i;

/**
 * `text` with every secret the rules above recognise replaced by `[redacted]`.
 * @param {string} text
 * @returns {string}
 */
export function redactSecrets(text) {
  if (!MARKERS.test(text)) return text;
  let out = text;
  for (const [pattern, replacement] of RULES) out = out.replace(pattern, replacement);
  return out;
}
