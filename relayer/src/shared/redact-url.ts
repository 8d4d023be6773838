/** What stands in for a hidden credential. */
const HIDDEN = "***";

/**
 * A URL as it may be shown on a terminal or in a log: user name and password, every query value,
 * the fragment, and any path segment that looks like an API key (20 or more letters, digits,
 * `-` or `_` with at least one digit, as in `https://node.example/v3/<key>`) become `***`.
 * Anything that does not parse as a URL is hidden whole. The start banner and the start-up steps
 * print URLs only through this (docs/api-decisions.md, "Operator safety").
 *
 * @example
 * redactUrl("https://user:pw@rpc.example/v3/0123456789abcdef0123?key=s") // "https://***:***@rpc.example/v3/***?key=***"
 */
export function redactUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return HIDDEN;
  }
  if (url.username !== "") url.username = HIDDEN;
  if (url.password !== "") url.password = HIDDEN;
  for (const key of [...new Set(url.searchParams.keys())]) url.searchParams.set(key, HIDDEN);
  if (url.hash !== "") url.hash = HIDDEN;
  url.pathname = url.pathname
    .split("/")
    .map((segment) => (/^(?=.*\d)[A-Za-z0-9_-]{20,}$/.test(segment) ? HIDDEN : segment))
    .join("/");
  // URL setters percent-encode `*`; show the placeholder as written. `new URL` adds a "/" path
  // to a bare origin: keep the text as the operator wrote it.
  const shown = url.toString().replaceAll("%2A", "*");
  return url.pathname === "/" && !/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*\//i.test(text)
    ? shown.replace(/\/(?=$|[?#])/, "")
    : shown;
}
