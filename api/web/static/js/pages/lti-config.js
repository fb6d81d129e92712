// LTI (instructors): the registered platforms (register, delete), the courses launched from
// (sync a roster through NRPS) and the tool's signing key (rotate). The values to paste into
// the LMS are on the page already (public).
import { api, requireUser } from "../api.js";
import { $, h, pageAlert, showAlert } from "../dom.js";

const user = await requireUser();

async function load() {
  const [platforms, contexts, config] = await Promise.all([
    api("/lti/platforms"),
    api("/lti/contexts"),
    api("/lti/config"),
  ]);
  $("#lti-platforms").replaceChildren(...platforms.map((p) => h("tr", {},
    h("td", {}, p.issuer),
    h("td", {}, p.client_id),
    h("td", {}, p.deployment_ids.join(", ")),
    h("td", {}, h("button", { type: "button", class: "btn btn-small", "data-delete": String(p.id) }, "Delete")),
  )));
  $("#lti-contexts").replaceChildren(...contexts.map((c) => h("tr", {},
    h("td", {}, c.title || c.context_id),
    h("td", {}, c.roster ? "yes" : "no"),
    h("td", {}, c.grades ? "yes" : "no"),
    h("td", {}, c.roster
      ? h("button", { type: "button", class: "btn btn-small", "data-sync": String(c.id) }, "Sync roster")
      : ""),
  )));
  $("#lti-kid").textContent = config.signing_kid;
}

async function run(action, done) {
  try {
    await action();
    if (done) pageAlert(done, "success");
    await load();
  } catch (error) {
    pageAlert(error.message);
  }
}

if (user.role === "instructor") {
  $("#lti-manage").hidden = false;
  await run(async () => {});
  const form = $("#lti-register");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = Object.fromEntries(new FormData(form));
    data.deployment_ids = String(data.deployment_ids).split(",").map((d) => d.trim()).filter(Boolean);
    try {
      await api("/lti/platforms", { method: "POST", json: data });
      form.reset();
      $(".form-error", form).hidden = true;
      await load();
    } catch (error) {
      showAlert($(".form-error", form), error.message);
    }
  });
  $("#lti-platforms").addEventListener("click", (event) => {
    const id = event.target.dataset && event.target.dataset.delete;
    if (id) run(() => api(`/lti/platforms/${id}`, { method: "DELETE" }), "Platform deleted.");
  });
  $("#lti-contexts").addEventListener("click", (event) => {
    const id = event.target.dataset && event.target.dataset.sync;
    if (!id) return;
    run(async () => {
      const synced = await api(`/lti/contexts/${id}/roster`, { method: "POST" });
      pageAlert(`${synced.members} members, ${synced.created} new accounts.`, "success");
    });
  });
  $("#lti-rotate").addEventListener("click", () => {
    run(() => api("/lti/keys/rotate", { method: "POST" }), "A new signing key is in use.");
  });
}
