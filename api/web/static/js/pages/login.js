// Log in: the OAuth2 password form gives a bearer token, kept in localStorage.
import { api, setToken } from "../api.js";
import { $, showAlert } from "../dom.js";
import { sameOriginPath } from "../next-path.js";

const form = $("#login-form");
const error = $(".form-error", form);
const params = new URLSearchParams(location.search);

// Only this site's pages: never send the user to another origin after logging in.
function nextPath() {
  return sameOriginPath(params.get("next") || "/problems", location.origin);
}

if (params.get("expired")) showAlert(error, "Your session has expired. Please log in again.", "info");
if (params.get("registered")) showAlert(error, "Your account is ready. Log in to start.", "success");
if (params.get("username")) $("#username").value = params.get("username");

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const username = $("#username").value.trim();
  const password = $("#password").value;
  if (!username || !password) {
    showAlert(error, "Enter your username and your password.");
    (username ? $("#password") : $("#username")).focus();
    return;
  }
  const button = $("button[type=submit]", form);
  button.disabled = true;
  showAlert(error, "");
  try {
    const body = new URLSearchParams({ username, password });
    const token = await api("/token", { method: "POST", form: body, auth: false });
    setToken(token.access_token);
    location.assign(nextPath());
  } catch (err) {
    showAlert(error, err.status === 401 ? "Wrong username or password." : err.message);
    $("#password").select();
    button.disabled = false;
  }
});
