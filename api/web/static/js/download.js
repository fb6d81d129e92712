// Saving a file the API makes (a CSV export): fetched with the bearer token, then handed to
// the browser as a download.
import { ApiError, API, errorFromResponse, getToken } from "./api.js";

export async function download(path, filename) {
  const headers = {};
  const token = getToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  let response;
  try {
    response = await fetch(API + path, { headers, cache: "no-store" });
  } catch {
    throw new ApiError(0, "Cannot reach the judge. Check your connection and try again.");
  }
  if (!response.ok) throw await errorFromResponse(response);
  saveBlob(await response.blob(), filename);
}

// Text made in the page (a CSV of the passwords just created) saved as a file.
export function saveText(text, filename, type = "text/plain") {
  saveBlob(new Blob([text], { type: `${type};charset=utf-8` }), filename);
}

function saveBlob(blob, filename) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
