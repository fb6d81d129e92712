// Server-Sent Events over fetch(): EventSource cannot send an Authorization header, so the
// stream is read and parsed here (the text/event-stream format: "event:", "data:", "id:"
// fields, blank line between events, ":" comment lines).

import { ApiError, errorFromResponse, getToken } from "./api.js";

function parseBlock(block) {
  let event = "message";
  let id = null;
  const data = [];
  for (const line of block.split(/\r?\n/)) {
    if (!line || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
    else if (field === "id") id = value;
  }
  if (!data.length) return null;
  const text = data.join("\n");
  let parsed = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: hand over the text
  }
  return { event, id, data: parsed };
}

// Calls onEvent({event, id, data}) for each event until the server ends the stream or
// `signal` aborts it. Rejects with an ApiError for an HTTP error or a dropped connection.
export async function streamEvents(url, { onEvent, signal }) {
  const headers = { Accept: "text/event-stream" };
  const token = getToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  let response;
  try {
    response = await fetch(url, { headers, signal, cache: "no-store" });
  } catch (error) {
    if (error && error.name === "AbortError") throw error;
    throw new ApiError(0, "Lost the connection to the judge.");
  }
  if (!response.ok) throw await errorFromResponse(response);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let split;
      while ((split = buffer.search(/\r?\n\r?\n/)) !== -1) {
        const block = buffer.slice(0, split);
        buffer = buffer.slice(split).replace(/^\r?\n\r?\n/, "");
        const parsed = parseBlock(block);
        if (parsed) onEvent(parsed);
      }
    }
  } catch (error) {
    if (error && error.name === "AbortError") throw error;
    throw new ApiError(0, "Lost the connection to the judge.");
  }
  if (buffer.trim()) {
    const parsed = parseBlock(buffer);
    if (parsed) onEvent(parsed);
  }
}
