// After an LTI launch: keep the judge's token the launch gave, then open the page it names;
// a deep-linking answer goes back to the LMS at once (the button stays as a fallback).
import { setToken } from "../api.js";
import { sameOriginPath } from "../next-path.js";

const landing = document.getElementById("lti-landing");
if (landing && landing.dataset.token) {
  setToken(landing.dataset.token);
  if (landing.dataset.next) {
    location.replace(sameOriginPath(landing.dataset.next, location.origin));
  }
}

const back = document.getElementById("lti-return-form");
if (back && back.dataset.autosubmit) back.submit();
