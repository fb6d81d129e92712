// Where to go after logging in: a page of this site, never another origin. `next` is resolved
// as the browser will resolve it (new URL against this origin: tabs and newlines dropped,
// backslashes read as slashes), so "/%09/host/", "/\host" or "//host" cannot lead away.
export function sameOriginPath(next, origin, fallback = "/") {
  let url;
  try {
    url = new URL(next, origin);
  } catch {
    return fallback;
  }
  if (url.origin !== new URL(origin).origin) return fallback;
  return `${url.pathname}${url.search}${url.hash}`;
}
