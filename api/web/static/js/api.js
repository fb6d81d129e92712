// Talking to the judge's HTTP API: the bearer token, requests, and errors in plain words.

const TOKEN_KEY = "judge.token";
export const API = "/api/v1";

function tokenClaims(token) {
  try {
    const part = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
    return JSON.parse(atob(part));
  } catch {
    return null;
  }
}

export function getToken() {
  const token = localStorage.getItem(TOKEN_KEY);
  if (!token) return null;
  const claims = tokenClaims(token);
  if (claims && typeof claims.exp === "number" && claims.exp * 1000 <= Date.now()) {
    localStorage.removeItem(TOKEN_KEY);
    return null;
  }
  return token;
}

export function setToken(token) {
  localStorage.setItem(TOKEN_KEY, token);
}

export function clearToken() {
  localStorage.removeItem(TOKEN_KEY);
}

export class ApiError extends Error {
  constructor(status, message, detail = null, headers = null) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.detail = detail;
    this.headers = headers;
  }
}

const FIELD_NAMES = {
  username: "Username",
  password: "Password",
  invite_code: "Invite code",
  problem: "Problem",
  source: "Source code",
  file: "File",
  input: "Board",
  since: "From date",
  until: "To date",
  verdict: "Verdict",
  user: "User",
};

function sentence(text) {
  const s = String(text).trim();
  if (!s) return s;
  const first = s[0].toUpperCase() + s.slice(1);
  return /[.!?)]$/.test(first) ? first : first + ".";
}

// One validation error from FastAPI/pydantic, in words a person can act on.
function describeField(error) {
  const loc = (error.loc || []).filter((part) => part !== "body" && part !== "query");
  const field = loc.length ? String(loc[loc.length - 1]) : "";
  const name = FIELD_NAMES[field] || (field ? field.replace(/_/g, " ") : "");
  const type = error.type || "";
  if (field === "username" && type.includes("pattern")) {
    return "Username must be 3 to 32 letters, digits, dots, dashes or underscores.";
  }
  if (type === "string_too_short" && error.ctx && error.ctx.min_length) {
    return `${name || "Value"} must have at least ${error.ctx.min_length} characters.`;
  }
  if (type === "string_too_long" && error.ctx && error.ctx.max_length) {
    return `${name || "Value"} must have at most ${error.ctx.max_length} characters.`;
  }
  if (type === "missing") return `${name || "A field"} is required.`;
  const msg = String(error.msg || "is not valid").replace(/^Value error, /, "");
  return sentence(name ? `${name}: ${msg}` : msg);
}

function fallbackMessage(status) {
  if (status === 400) return "The judge did not accept this request.";
  if (status === 401) return "Please log in to continue.";
  if (status === 403) return "Only instructors can do this.";
  if (status === 404) return "That could not be found. It may have been deleted.";
  if (status === 409) return "That already exists.";
  if (status === 413) return "That is too large for the judge to accept.";
  if (status === 415) return "The judge does not accept this kind of upload.";
  if (status === 422) return "Some of what you entered is not valid.";
  if (status === 429) return "Too many requests. Please wait a moment and try again.";
  if (status === 503) return "The judge is temporarily unavailable. Please try again shortly.";
  if (status >= 500) return `The judge ran into a problem (error ${status}). Please try again in a moment.`;
  return `The request failed (error ${status}).`;
}

// Turns an error body ({detail: str | [errors]}) into one readable message.
export function describeError(status, body) {
  const detail = body && typeof body === "object" ? body.detail : null;
  if (status >= 500 && status !== 503) return fallbackMessage(status);
  if (typeof detail === "string" && detail.trim()) {
    if (status === 401 && /expired|invalid/.test(detail)) {
      return "Your session has expired. Please log in again.";
    }
    return sentence(detail);
  }
  if (Array.isArray(detail) && detail.length) {
    return detail.map(describeField).join(" ");
  }
  return fallbackMessage(status);
}

function parseJson(text) {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

// The ApiError for a response that is not ok, its message fit to show to the user. Every
// caller of fetch() against the API (requests, event streams, downloads) ends up here.
export async function errorFromResponse(response) {
  let body = null;
  try {
    body = parseJson(await response.text());
  } catch {
    // the connection dropped while reading the body: the status alone says enough
  }
  return new ApiError(response.status, describeError(response.status, body), body, response.headers);
}

export function loginUrl(next = location.pathname + location.search) {
  return `/login?next=${encodeURIComponent(next)}`;
}

// fetch() against /api/v1 with the bearer token. Resolves with parsed JSON (null for 204);
// rejects with an ApiError whose message is fit to show to the user.
export async function api(path, options = {}) {
  const { method = "GET", json, form, body, auth = true, signal, redirectOn401 = true } = options;
  const { withStatus = false } = options; // resolve to {status, data}: 200 and 202 can differ
  const headers = { Accept: "application/json", ...(options.headers || {}) };
  const token = getToken();
  if (auth && token) headers.Authorization = `Bearer ${token}`;
  let payload = body;
  if (json !== undefined) {
    headers["Content-Type"] = "application/json";
    payload = JSON.stringify(json);
  } else if (form !== undefined) {
    payload = form; // FormData or URLSearchParams: the browser sets the content type
  }
  const url = path.startsWith("/api/") ? path : API + path;
  let response;
  try {
    response = await fetch(url, { method, headers, body: payload, signal, cache: "no-store" });
  } catch (error) {
    if (error && error.name === "AbortError") throw error;
    throw new ApiError(0, "Cannot reach the judge. Check your connection and try again.");
  }
  if (response.status === 204) return null;
  if (!response.ok) {
    if (response.status === 401 && auth && redirectOn401) {
      clearToken();
      location.assign(loginUrl() + "&expired=1");
    }
    throw await errorFromResponse(response);
  }
  const text = await response.text();
  const data = parseJson(text);
  if (data === null && text) {
    throw new ApiError(response.status, "The judge sent an answer this page cannot read.");
  }
  return withStatus ? { status: response.status, data } : data;
}

let mePromise = null;

// The logged-in user ({id, username, role}) or null; fetched once per page.
export function currentUser() {
  if (!mePromise) {
    mePromise = getToken()
      ? api("/users/me", { redirectOn401: false }).catch((error) => {
          if (error.status === 401) {
            clearToken();
            return null;
          }
          throw error;
        })
      : Promise.resolve(null);
  }
  return mePromise;
}

// For pages that need a login: the user, or a redirect to the login page.
export async function requireUser() {
  const user = await currentUser();
  if (!user) {
    location.replace(loginUrl());
    return new Promise(() => {}); // never resolves: the page is going away
  }
  return user;
}
