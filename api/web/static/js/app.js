// Loaded by every page: the account area of the top bar, the active nav item, logout, and
// the instructor-only parts of the navigation.
import { clearToken, currentUser, loginUrl } from "./api.js";
import { $, $$, h, pageAlert } from "./dom.js";

function markActiveNav() {
  const active = document.body.dataset.nav;
  for (const link of $$("[data-nav-item]")) {
    if (link.dataset.navItem === active) link.setAttribute("aria-current", "page");
  }
}

// An instructor page opened by a student: one plain page instead of the instructor page's
// frame with an error on top. The page's own nodes stay (hidden): its script may hold them.
function showNotAllowed(user) {
  const main = $("#main");
  for (const child of main.children) child.hidden = true;
  main.appendChild(h("section", { class: "empty-state", id: "not-allowed" },
    h("h1", {}, "Not allowed"),
    h("p", {}, `This page is for instructors. You are logged in as ${user.username}, a student account.`),
    h("p", {}, h("a", { class: "btn", href: "/problems" }, "Go to the problems"))));
  document.title = "Not allowed · Footholds Judge";
}

// /login or /register while logged in: say who is logged in, rather than a bare form.
function showLoggedIn(user) {
  const card = $(".auth-card");
  if (!card) return;
  card.prepend(h("div", { class: "alert alert-info", id: "logged-in-note", role: "status" },
    `You are logged in as ${user.username}. `, h("a", { href: "/problems" }, "Go to the problems"),
    ", or log out to use another account."));
}

// Instructors see a banner on every page while grading is delayed (/healthz's `delayed`: no
// grading worker alive, or the oldest queued submission waited far beyond the normal),
// asked again every half minute.
const GRADING_CHECK_MS = 30000;

function waitedText(seconds) {
  return seconds < 120 ? `${Math.round(seconds)} s` : `${Math.round(seconds / 60)} min`;
}

async function watchGrading() {
  let health = null;
  try {
    health = await (await fetch("/healthz", { cache: "no-store" })).json();
  } catch {
    // the API itself is unreachable: the page's own requests say so
  }
  let banner = $("#grading-banner");
  if (health && health.delayed) {
    if (!banner) {
      banner = h("div", { class: "alert alert-warning grading-banner", id: "grading-banner", role: "status" });
      $("#page-alert").after(banner);
    }
    const noGrader = health.lanes && health.lanes.grading && !health.lanes.grading.alive;
    const waited = health.oldest_queued_s != null
      ? ` The oldest queued submission has waited ${waitedText(health.oldest_queued_s)}.` : "";
    banner.textContent = noGrader
      ? `Grading is stopped: no grading worker is running. Submissions are safe and wait in the queue.${waited}`
      : `Grading is delayed: the queue is far slower than usual.${waited}`;
  } else if (banner && health) {
    banner.remove();
  }
  setTimeout(watchGrading, GRADING_CHECK_MS);
}

// Instructor pages stay invisible (CSS) until the account is known, so nobody sees half of one.
function roleChecked() {
  document.body.dataset.roleChecked = "1";
}

async function setupAccount() {
  const isPublic = document.body.dataset.public === "1";
  let user;
  try {
    user = await currentUser();
  } catch (error) {
    roleChecked();
    pageAlert(error.message);
    return;
  }
  if (!user) {
    if (!isPublic) {
      location.replace(loginUrl());
      return;
    }
    $("#nav-login").hidden = false;
    $("#nav-register").hidden = false;
    return;
  }
  const who = $("#account-user");
  who.hidden = false;
  who.textContent = user.username;
  if (user.role === "instructor") {
    who.appendChild(document.createTextNode(" "));
    const badge = document.createElement("span");
    badge.className = "role-badge";
    badge.textContent = "instructor";
    who.appendChild(badge);
    for (const node of $$("[data-role=instructor]")) node.hidden = false;
    watchGrading();
  }
  const logout = $("#nav-logout");
  logout.hidden = false;
  logout.addEventListener("click", () => {
    clearToken();
    location.assign("/login");
  });
  if (document.body.dataset.instructor === "1" && user.role !== "instructor") showNotAllowed(user);
  if (isPublic) showLoggedIn(user);
  roleChecked();
}

markActiveNav();
setupAccount();
