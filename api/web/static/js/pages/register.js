// Register a student account, then log straight in. The judge says how accounts are made
// (GET /registration): open, by invite code (the code field shows), or closed (the form hides).
import { api, setToken } from "../api.js";
import { $, h, showAlert } from "../dom.js";

const form = $("#register-form");
const error = $(".form-error", form);
const inviteField = $("#invite-field");
const closedNote = $("#registration-closed");
const USERNAME = /^[A-Za-z0-9_.-]{3,32}$/;
let mode = "open";

// Every problem with the form at once, as [field, message] (one submit shows them all).
function check(username, password, repeat, invite) {
  const problems = [];
  if (!USERNAME.test(username)) {
    problems.push(["#username", "Username must be 3 to 32 letters, digits, dots, dashes or underscores."]);
  }
  if (password.length < 8) problems.push(["#password", "Password must have at least 8 characters."]);
  if (password.length > 128) problems.push(["#password", "Password must have at most 128 characters."]);
  if (password !== repeat) problems.push(["#password2", "The two passwords are not the same."]);
  if (mode === "invite" && !invite) problems.push(["#invite_code", "Enter the invite code your instructor gave you."]);
  return problems;
}

function showProblems(problems) {
  if (problems.length === 1) {
    showAlert(error, problems[0][1]);
  } else {
    showAlert(error, `Fix these ${problems.length} things:`);
    error.appendChild(h("ul", { class: "form-error-list" }, problems.map(([, message]) => h("li", {}, message))));
  }
  for (const [field] of problems) $(field).setAttribute("aria-invalid", "true");
  $(problems[0][0]).focus();
}

function showMode(next) {
  mode = next;
  inviteField.hidden = mode !== "invite";
  $("#invite_code").required = mode === "invite";
  if (mode === "closed") {
    form.hidden = true;
    showAlert(closedNote, "Registration is closed here. Ask an instructor to create your account.", "info");
  }
}

api("/registration", { auth: false })
  .then((info) => showMode(info.mode))
  .catch(() => {}); // unknown: keep the plain form, the judge's answer will say what is needed

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const username = $("#username").value.trim();
  const password = $("#password").value;
  const invite = $("#invite_code").value.trim();
  const problems = check(username, password, $("#password2").value, invite);
  for (const input of form.querySelectorAll("input")) input.removeAttribute("aria-invalid");
  if (problems.length) {
    showProblems(problems);
    return;
  }
  const button = $("button[type=submit]", form);
  button.disabled = true;
  showAlert(error, "");
  const body = { username, password };
  if (mode === "invite") body.invite_code = invite;
  try {
    await api("/users", { method: "POST", json: body, auth: false });
    const token = await api("/token", {
      method: "POST", form: new URLSearchParams({ username, password }), auth: false,
    });
    setToken(token.access_token);
    location.assign("/problems");
  } catch (err) {
    // The judge's own words (closed, a wrong invite code, too many registrations...),
    // except for a taken name, said more helpfully here.
    const message = err.status === 409 ? `The username “${username}” is taken. Choose another one.` : err.message;
    showAlert(error, message);
    if (err.status === 403 && /invite code/.test(err.message)) {
      if (mode !== "invite") showMode("invite");
      $("#invite_code").setAttribute("aria-invalid", "true");
    }
    if (err.status === 403 && /closed/.test(err.message)) showMode("closed");
    button.disabled = false;
  }
});
