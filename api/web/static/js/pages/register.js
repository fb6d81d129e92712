// Register a student account, then log straight in.
import { api, setToken } from "../api.js";
import { $, showAlert } from "../dom.js";

const form = $("#register-form");
const error = $(".form-error", form);
const USERNAME = /^[A-Za-z0-9_.-]{3,32}$/;

function check(username, password, repeat) {
  if (!USERNAME.test(username)) {
    return ["#username", "Username must be 3 to 32 letters, digits, dots, dashes or underscores."];
  }
  if (password.length < 8) return ["#password", "Password must have at least 8 characters."];
  if (password.length > 128) return ["#password", "Password must have at most 128 characters."];
  if (password !== repeat) return ["#password2", "The two passwords are not the same."];
  return null;
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const username = $("#username").value.trim();
  const password = $("#password").value;
  const problem = check(username, password, $("#password2").value);
  for (const input of form.querySelectorAll("input")) input.removeAttribute("aria-invalid");
  if (problem) {
    const [field, message] = problem;
    showAlert(error, message);
    $(field).setAttribute("aria-invalid", "true");
    $(field).focus();
    return;
  }
  const button = $("button[type=submit]", form);
  button.disabled = true;
  showAlert(error, "");
  try {
    await api("/users", { method: "POST", json: { username, password }, auth: false });
    const token = await api("/token", {
      method: "POST", form: new URLSearchParams({ username, password }), auth: false,
    });
    setToken(token.access_token);
    location.assign("/problems");
  } catch (err) {
    const message = err.status === 409 ? `The username “${username}” is taken. Choose another one.` : err.message;
    showAlert(error, message);
    button.disabled = false;
  }
});
