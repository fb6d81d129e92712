// "Load into editor": a past submission's code into the problem page's editor (?load=ID, from
// the history or a submission's page). The draft it replaces is never dropped silently: it
// is kept aside in this browser (a stack per problem, newest last) with a note offering to put
// it back, and putting it back keeps the code it replaces in turn, unless that is a loaded
// submission unchanged (the history has it).
import { api } from "../../api.js";
import { $, pageAlert } from "../../dom.js";

export class LoadIntoEditor {
  // put(text, from): the page puts code in its editor (and saves it as the draft), switching
// to from.language and from.style first when given (a submission, a kept draft).
// current(): {language, style} the editor is in, kept with a draft set aside.
  constructor(slug, editor, { isTemplate, put, current = () => ({}) }) {
    this.slug = slug;
    this.editor = editor;
    this.isTemplate = isTemplate;
    this.put = put;
    this.current = current;
    this.key = `judge.kept.${slug}`;
    this.loaded = null; // the source of the submission last loaded
    $("#kept-restore").addEventListener("click", () => this.restore());
    $("#kept-forget").addEventListener("click", () => {
      const kept = this.read();
      kept.pop();
      this.write(kept);
      this.show();
    });
  }

  read() {
    try {
      const kept = JSON.parse(localStorage.getItem(this.key) || "[]");
      return Array.isArray(kept) ? kept.filter((k) => k && typeof k.source === "string") : [];
    } catch {
      return [];
    }
  }

  write(kept) {
    try {
      if (kept.length) localStorage.setItem(this.key, JSON.stringify(kept));
      else localStorage.removeItem(this.key);
    } catch {
      // Storage full or blocked: the note then says nothing is kept.
    }
  }

  // Code worth keeping: written by the student, not the template or a loaded submission.
  isDraft(text) {
    return Boolean(text.trim()) && !this.isTemplate(text) && text !== this.loaded;
  }

  keepAside(text, label) {
    const kept = this.read();
    if (!this.isDraft(text) || kept.some((k) => k.source === text)) return;
    kept.push({ source: text, label, at: new Date().toISOString(), ...this.current() });
    this.write(kept);
  }

  // The note: what just happened (headline), and the newest kept code with its two buttons.
  show(headline = "") {
    const kept = this.read();
    $("#kept-note").hidden = !kept.length && !headline;
    $("#kept-restore").hidden = $("#kept-forget").hidden = !kept.length;
    $("#kept-forget").previousSibling.textContent = kept.length ? " · " : "";
    const top = kept[kept.length - 1];
    const more = kept.length > 1 ? ` (and ${kept.length - 1} older)` : "";
    $("#kept-text").textContent = [headline, top ? `${top.label}${more} is kept in this browser.` : ""]
      .filter(Boolean).join(" ");
  }

  restore() {
    const kept = this.read();
    const top = kept.pop();
    if (!top) return;
    this.write(kept);
    this.keepAside(this.editor.value, "The code it replaced");
    this.loaded = null;
    this.put(top.source, top);
    this.show("Your draft is back in the editor.");
    this.editor.textarea.focus();
  }

  // The submission the address asks for (?load=ID) into the editor; else just the note of
  // what is kept from an earlier visit.
  async loadRequested() {
    const wanted = new URLSearchParams(location.search).get("load");
    if (!wanted) {
      this.show();
      return;
    }
    history.replaceState(null, "", location.pathname + location.hash); // a reload keeps the editor
    if (!/^\d{1,10}$/.test(wanted)) {
      pageAlert("That is not a submission number.");
      return;
    }
    let sub;
    try {
      sub = await api(`/submissions/${wanted}`);
    } catch (err) {
      pageAlert(`Could not load submission #${wanted}: ${err.message}`);
      return;
    }
    if (sub.problem !== this.slug) {
      location.replace(`/problems/${encodeURIComponent(sub.problem)}?load=${sub.id}`);
      return;
    }
    if (this.editor.value !== sub.source) this.keepAside(this.editor.value, "The draft you had");
    this.loaded = sub.source;
    this.put(sub.source, sub);
    this.show(`Submission #${sub.id} is in the editor.`);
  }
}
