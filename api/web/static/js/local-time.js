// Times entered and shown in the reader's time zone, sent and stored as UTC.

function pad(n) {
  return String(n).padStart(2, "0");
}

// An ISO time (UTC) as a datetime-local input's value in the reader's zone.
export function toLocalInput(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

// A datetime-local input's value (the reader's zone) as ISO UTC; null when empty.
export function fromLocalInput(value) {
  return value ? new Date(value).toISOString() : null;
}

// The reader's zone, named, for a form's hint.
export function zoneName() {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || "your time zone";
}
