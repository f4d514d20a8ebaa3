// benchsmith review page. Every value from the benchmark is shown with textContent (never
// parsed as HTML), so an item's text can hold "<script>" and shows as text.
"use strict";

const token = new URLSearchParams(location.search).get("token");
// busy: a decision is being saved and the next item opened. Keys and clicks that decide are
// ignored meanwhile, so a key pressed before the next item shows never lands on the last one.
const state = { rows: [], shown: [], current: null, item: null, reasons: {}, busy: false };

function url(path) {
  return token ? `${path}${path.includes("?") ? "&" : "?"}token=${encodeURIComponent(token)}` : path;
}

async function api(path, options) {
  const response = await fetch(url(path), options);
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
}

function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

function fillSelect(name, values) {
  const select = document.querySelector(`#filters [name=${name}]`);
  const keep = select.value;
  while (select.options.length > 1) select.remove(1);
  for (const value of [...new Set(values)].sort()) select.add(new Option(value, value));
  select.value = keep;
}

function filtered() {
  const form = new FormData(document.getElementById("filters"));
  return state.rows.filter((row) =>
    (!form.get("status") || row.status === form.get("status")) &&
    (!form.get("subtask") || row.subtask === form.get("subtask")) &&
    (!form.get("language") || row.language === form.get("language")) &&
    (!form.get("modality") || row.modality === form.get("modality")) &&
    (!form.get("wording") || row.wording === form.get("wording")) &&
    (!form.get("judge") || row.judge === form.get("judge")) &&
    (!form.get("failed") || row.failed_checks.includes(form.get("failed"))));
}

function renderList() {
  state.shown = filtered();
  const list = document.getElementById("list");
  clear(list);
  for (const row of state.shown) {
    const li = el("li", `${row.question}`, row.status);
    li.dataset.id = row.id;
    li.title = `${row.id} · ${row.subtask} · ${row.language} · ${row.modality} · ${row.status}`;
    if (row.id === state.current) li.classList.add("current");
    li.addEventListener("click", () => open(row.id).catch(showError));
    list.appendChild(li);
  }
}

function renderProgress(progress) {
  document.getElementById("progress").textContent =
    `${progress.reviewed} of ${progress.total} reviewed by ${state.reviewer}`;
}

function pct(x) { return x === null || x === undefined ? "—" : `${(100 * x).toFixed(1)} %`; }

function renderSummary(summary) {
  const table = document.getElementById("acceptance");
  clear(table);
  const head = table.insertRow();
  for (const h of ["", "reviewed", "accepted", "95 % interval"]) head.appendChild(el("th", h));
  const rows = [["all", summary.overall], ...Object.entries(summary.by_subtask)];
  for (const [name, s] of rows) {
    const tr = table.insertRow();
    tr.appendChild(el("td", name));
    tr.appendChild(el("td", s.reviewed));
    tr.appendChild(el("td", pct(s.acceptance)));
    tr.appendChild(el("td", s.ci95 ? `${pct(s.ci95[0])} – ${pct(s.ci95[1])}` : "—"));
  }
  const reasons = document.getElementById("reason-counts");
  clear(reasons);
  for (const [reason, n] of Object.entries(summary.reasons)) reasons.appendChild(el("li", `${reason}: ${n}`));
  const agreement = document.getElementById("agreement");
  clear(agreement);
  for (const a of summary.agreement) {
    agreement.appendChild(el("li", `${a.reviewers.join(" / ")}: kappa ${a.kappa ?? "—"} on ${a.items} item(s)`));
  }
}

async function load() {
  const data = await api("/api/items");
  state.rows = data.items;
  state.reasons = data.reasons;
  state.reviewer = data.reviewer;
  document.getElementById("folder").textContent = data.folder;
  for (const name of ["subtask", "language", "modality", "wording", "judge"]) fillSelect(name, state.rows.map((r) => r[name]));
  fillSelect("failed", state.rows.flatMap((r) => r.failed_checks));
  const reasonBox = document.getElementById("reasons");
  clear(reasonBox);
  Object.entries(state.reasons).forEach(([value, label], i) => {
    const option = el("label");
    const input = document.createElement("input");
    input.type = "radio"; input.name = "reason"; input.value = value;
    option.appendChild(input);
    option.appendChild(document.createTextNode(` ${i + 1} ${label} `));
    reasonBox.appendChild(option);
  });
  renderProgress(data.progress);
  renderSummary(data.summary);
  renderList();
  const first = state.shown.find((r) => r.status === "unreviewed") || state.shown[0];
  if (first) await open(first.id);
}

function renderPart(part) {
  if (part.type === "text") return el("p", part.text, "text-part");
  if (part.type === "image") {
    const img = document.createElement("img");
    img.src = part.url; img.alt = "item image";
    return img;
  }
  const audio = document.createElement("audio");
  audio.controls = true; audio.preload = "auto"; audio.src = part.url;
  return audio;
}

async function open(id) {
  const item = await api(`/api/items/${encodeURIComponent(id)}`);
  state.current = id; state.item = item;
  document.getElementById("empty").hidden = true;
  document.getElementById("item").hidden = false;
  document.getElementById("item-id").textContent = item.id;
  document.getElementById("item-meta").textContent =
    `${item.subtask} · ${item.language} · ${item.modality} · wording ${item.wording}` +
    (item.spoken_text ? ` · spoken: "${item.spoken_text}"` : "");
  const parts = document.getElementById("parts");
  clear(parts);
  for (const part of item.parts) parts.appendChild(renderPart(part));
  const choices = document.getElementById("choices");
  clear(choices);
  for (const c of item.choices) choices.appendChild(el("li", c.text + (c.correct ? "  ✓" : ""), c.correct ? "correct" : ""));
  document.getElementById("target").textContent = item.choices.length ? `${item.target}) ${item.answer}` : item.target;
  const record = document.getElementById("record");
  clear(record);
  for (const [k, v] of Object.entries(item.record || {})) {
    const tr = record.insertRow(); tr.appendChild(el("th", k)); tr.appendChild(el("td", v));
  }
  const verdicts = document.getElementById("verdicts");
  clear(verdicts);
  for (const v of item.verdicts) {
    const tr = verdicts.insertRow();
    tr.appendChild(el("th", v.check));
    tr.appendChild(el("td", v.ok ? "pass" : "fail", v.ok ? "pass" : "fail"));
    tr.appendChild(el("td", v.reason || ""));
  }
  document.getElementById("trace").textContent = JSON.stringify(item.trace, null, 2);
  showDecision(item.decision);
  hideForms();
  renderList();
}

function showDecision(decision) {
  const span = document.getElementById("decision");
  span.textContent = decision ? `${decision.decision}${decision.reason ? ": " + state.reasons[decision.reason] : ""}` : "unreviewed";
}

function hideForms() {
  document.getElementById("reject-form").hidden = true;
  document.getElementById("edit-form").hidden = true;
  document.getElementById("message").textContent = "";
}

function showError(error) { document.getElementById("message").textContent = error.message; }

async function decide(body) {
  if (!state.current || state.busy) return;
  state.busy = true;
  try {
    const id = state.current;
    let result;
    try {
      result = await api(`/api/items/${encodeURIComponent(id)}/decision`, {
        method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body),
      });
    } catch (error) { showError(error); return; }
    const row = state.rows.find((r) => r.id === id);
    row.status = { accept: "accepted", reject: "rejected", edit: "edited" }[result.saved.decision];
    showDecision(result.saved);
    renderProgress(result.progress);
    renderSummary(result.summary);
    hideForms();
    await move(1);
  } finally {
    state.busy = false;
  }
}

async function move(step) {
  renderList();
  const index = state.shown.findIndex((r) => r.id === state.current);
  const next = state.shown[index + step];
  if (next) await open(next.id).catch(showError);
}

function startReject() { hideForms(); document.getElementById("reject-form").hidden = false; }

function startEdit() {
  hideForms();
  const form = document.getElementById("edit-form");
  const text = state.item.parts.find((p) => p.type === "text");
  form.question.value = text ? text.text : "";
  form.choices.value = state.item.choices.map((c) => c.text).join("\n");
  form.target.value = state.item.target;
  form.hidden = false;
  form.question.focus();
}

document.getElementById("accept").addEventListener("click", () => decide({ decision: "accept" }));
document.getElementById("reject").addEventListener("click", startReject);
document.getElementById("edit").addEventListener("click", startEdit);
for (const cancel of document.querySelectorAll(".cancel")) cancel.addEventListener("click", hideForms);
document.getElementById("filters").addEventListener("change", renderList);

document.getElementById("reject-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const form = event.target;
  const reason = form.querySelector("input[name=reason]:checked");
  if (!reason) { document.getElementById("message").textContent = "choose a reason (1-7)"; return; }
  decide({ decision: "reject", reason: reason.value, note: form.note.value });
});

document.getElementById("edit-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const form = event.target;
  const edit = {};
  const text = state.item.parts.find((p) => p.type === "text");
  if (form.question.value !== (text ? text.text : "")) edit.question = form.question.value;
  const choices = form.choices.value.split("\n").map((c) => c.trim()).filter(Boolean);
  if (choices.join("\n") !== state.item.choices.map((c) => c.text).join("\n")) edit.choices = choices;
  if (form.target.value !== state.item.target) edit.target = form.target.value;
  decide({ decision: "edit", edit, note: form.note.value });
});

document.addEventListener("keydown", (event) => {
  const typing = ["INPUT", "TEXTAREA", "SELECT"].includes(event.target.tagName);
  if (state.busy && !typing) { event.preventDefault(); return; }
  const rejecting = !document.getElementById("reject-form").hidden;
  if (rejecting && /^[1-7]$/.test(event.key) && !typing) {
    const inputs = document.querySelectorAll("#reasons input");
    const input = inputs[Number(event.key) - 1];
    if (input) {
      event.preventDefault();
      input.checked = true;
      // "other" needs a note: the reviewer types it at once (without the focus there, its
      // letters would be taken as keys: "a" would accept the item).
      if (input.value === "other") document.querySelector("#reject-form [name=note]").focus();
      else document.getElementById("reject-form").requestSubmit();
    }
    return;
  }
  if (event.key === "Escape") { hideForms(); return; }
  if (typing || event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.key === "a") decide({ decision: "accept" });
  else if (event.key === "r") startReject();
  else if (event.key === "e") { event.preventDefault(); startEdit(); }
  else if (event.key === "j") move(1);
  else if (event.key === "k") move(-1);
});

load().catch(showError);
