// Loaded by every page: the account area of the top bar, the active nav item, logout, and
// the instructor-only parts of the navigation.
import { clearToken, currentUser, loginUrl } from "./api.js";
import { $, $$, pageAlert } from "./dom.js";

function markActiveNav() {
  const active = document.body.dataset.nav;
  for (const link of $$("[data-nav-item]")) {
    if (link.dataset.navItem === active) link.setAttribute("aria-current", "page");
  }
}

async function setupAccount() {
  const isPublic = document.body.dataset.public === "1";
  let user = null;
  try {
    user = await currentUser();
  } catch (error) {
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
  }
  const logout = $("#nav-logout");
  logout.hidden = false;
  logout.addEventListener("click", () => {
    clearToken();
    location.assign("/login");
  });
  if (document.body.dataset.instructor === "1" && user.role !== "instructor") {
    for (const node of $$("[data-instructor-only]")) node.remove();
    pageAlert("This page is for instructors. Your account is a student account.");
  }
}

markActiveNav();
setupAccount();
