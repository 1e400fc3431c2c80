// Hollywood Gin: the page. It renders what the server sends and sends the clicks back;
// the game and its rules live on the server. Plain JavaScript, no build step.
"use strict";

const SUIT_SYMBOL = { c: "♣", d: "♦", h: "♥", s: "♠" };
const RANK_TEXT = { T: "10" };
const $ = (id) => document.getElementById(id);

const ui = {
  view: null,          // the last view from the server
  config: null,
  busy: false,         // a request or an animation is running
  knockMode: false,
  focus: -1,           // keyboard cursor in the hand
  hint: null,
  dragCard: null,
};

const prefs = {
  get fourColour() { return localStorage.getItem("hg.fourColour") === "1"; },
  set fourColour(v) { localStorage.setItem("hg.fourColour", v ? "1" : "0"); },
  get speed() { const v = localStorage.getItem("hg.speed"); return v === null ? 600 : Number(v); },
  set speed(v) { localStorage.setItem("hg.speed", String(v)); },
  get felt() { return localStorage.getItem("hg.felt") || "green"; },
  set felt(v) { localStorage.setItem("hg.felt", v); },
  get hintAgent() { return localStorage.getItem("hg.hintAgent") || ""; },
  set hintAgent(v) { localStorage.setItem("hg.hintAgent", v); },
};

// ---- the server ------------------------------------------------------------------------------

async function api(method, path, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) { opts.headers["Content-Type"] = "application/json"; opts.body = JSON.stringify(body); }
  const res = await fetch(path, opts);
  let data = null;
  try { data = await res.json(); } catch (e) { data = { error: `the server answered ${res.status}` }; }
  if (!res.ok) { const err = new Error(data.error || `error ${res.status}`); err.status = res.status; throw err; }
  return data;
}

async function request(fn) {
  if (ui.busy) return;
  ui.busy = true;
  try {
    const view = await fn();
    if (view) await show(view);
  } catch (e) {
    showMessage(e.message, true);
    if (e.status === 409 && ui.view) {           // stale: load the match as it is now
      try { await show(await api("GET", `/api/matches/${ui.view.match_id}`), { animate: false }); } catch (_) { /* keep */ }
      showMessage(e.message, true);
    }
  } finally {
    ui.busy = false;
  }
}

function move(m) {
  if (!ui.view) return;
  const v = ui.view;
  request(() => api("POST", `/api/matches/${v.match_id}/move`, { version: v.version, move: m }));
}

// ---- cards -------------------------------------------------------------------------------------

function cardEl(code, extra) {
  const el = document.createElement("div");
  const rank = code.slice(0, -1), suit = code.slice(-1);
  el.className = `card s-${suit}` + (extra ? " " + extra : "");
  el.dataset.card = code;
  el.setAttribute("aria-label", code);
  const r = document.createElement("span"); r.className = "rank"; r.textContent = RANK_TEXT[rank] || rank;
  const c = document.createElement("span"); c.className = "corner"; c.textContent = SUIT_SYMBOL[suit];
  const s = document.createElement("span"); s.className = "suit"; s.textContent = SUIT_SYMBOL[suit];
  el.append(r, c, s);
  return el;
}

function backEl() { const el = document.createElement("div"); el.className = "card back"; return el; }

// ---- showing a view -------------------------------------------------------------------------------

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const EVENT_TEXT = {
  draw_stock: (e) => e.who === "you" ? (e.automatic ? `Both passed: you draw ${e.card} from the stock.` : `You draw ${e.card}.`)
    : (e.automatic ? "Both passed: the opponent draws from the stock." : "The opponent draws from the stock."),
  take_discard: (e) => e.who === "you" ? `You take ${e.card}.` : `The opponent takes ${e.card} from the pile.`,
  pass: (e) => e.who === "you" ? "You pass." : "The opponent passes the upcard.",
  discard: (e) => e.who === "you" ? `You discard ${e.card}.` : `The opponent discards ${e.card}.`,
  knock: (e) => e.who === "you" ? `You knock, discarding ${e.card}.` : "The opponent knocks!",
  big_gin: (e) => e.who === "you" ? "You declare big gin." : "The opponent declares big gin!",
};

async function animateEvents(events) {
  const delay = prefs.speed;
  document.documentElement.style.setProperty("--anim", `${Math.min(delay, 300)}ms`);
  const theirs = events.filter((e) => e.who === "opponent");
  if (!delay || !theirs.length) return;
  for (const e of theirs) {
    showMessage(EVENT_TEXT[e.type](e));
    const target = e.type === "draw_stock" ? $("stock") : (e.type === "take_discard" || e.type === "discard") ? $("pile") : null;
    if (e.type === "discard") { $("pile").replaceWith(pileEl(e.card)); }
    const t = e.type === "discard" ? $("pile") : target;
    if (t) t.classList.add("flash");
    await sleep(delay);
    if (t) t.classList.remove("flash");
    if (e.type === "take_discard") $("pile").replaceWith(pileEl(null));
  }
}

function pileEl(top) {
  const el = top ? cardEl(top, "clickable") : document.createElement("div");
  if (!top) el.className = "card empty clickable";
  el.id = "pile"; el.tabIndex = 0; el.setAttribute("role", "button"); el.setAttribute("aria-label", "discard pile");
  el.dataset.testid = "pile"; el.setAttribute("data-testid", "pile");
  el.addEventListener("click", onPileClick);
  return el;
}

async function show(view, opts = {}) {
  const first = !ui.view || ui.view.match_id !== view.match_id;
  if (opts.animate !== false && !first) await animateEvents(view.events || []);
  ui.view = view;
  ui.hint = null;
  ui.knockMode = false;
  if (first) ui.focus = -1;
  render();
}

function render() {
  const v = ui.view;
  if (!v) return;
  document.body.dataset.version = String(v.version);   // for tests and scripts driving the page
  document.body.dataset.status = v.status;
  document.body.classList.toggle("four-colour", prefs.fourColour);
  document.body.classList.remove("felt-green", "felt-blue", "felt-red");
  document.body.classList.add(`felt-${prefs.felt}`);
  const r = v.rules;
  const preset = r.preset === "hollywood" ? "Hollywood (3 games)" : r.preset;
  $("match-label").textContent = `Match #${v.seed}${v.kind === "daily" ? " (daily deal)" : ""} · vs ${v.opponent} · ${preset}`;
  $("opponent-name").textContent = `Opponent: ${v.opponent}`;
  renderTable(v);
  renderSheet(v.scoresheet, $("scoresheet"), r);
  renderHistory(v.history);
  const dlg = $("result-dialog");
  if (v.result && (v.status === "hand_over" || v.status === "match_over")) {
    renderResult(v);
    if (!dlg.open) dlg.showModal();
  } else if (dlg.open) {
    dlg.close();
  }
  if (v.message) showMessage(v.message);
}

function renderTable(v) {
  const t = v.table;
  const hand = $("player-hand"), opp = $("opponent-hand");
  hand.innerHTML = ""; opp.innerHTML = "";
  $("table").classList.toggle("knock-mode", ui.knockMode);
  if (!t) {                                     // a hand's result or the match's end is shown
    $("stock").className = "card back"; $("stock-count").textContent = "";
    $("pile").replaceWith(pileEl(null)); $("pile-count").textContent = "";
    $("upcard-buttons").hidden = true; $("btn-knock").hidden = true; $("btn-biggin").hidden = true;
    $("deadwood").textContent = "–"; $("deadwood-after").textContent = "";
    $("opponent-known").textContent = ""; $("hand-info").textContent = "";
    return;
  }
  for (let i = 0; i < t.opponent.cards; i++) opp.append(backEl());
  const known = $("opponent-known"); known.innerHTML = "";
  if (t.opponent.known.length) {
    known.append("Holds, taken from the pile: ");
    for (const c of t.opponent.known) known.append(cardEl(c));
  }
  $("opponent-dealer").hidden = t.dealer !== "opponent";
  $("player-dealer").hidden = t.dealer !== "you";

  const myTurn = t.to_move === "you";
  const stock = $("stock");
  stock.className = "card back clickable" + (myTurn && t.legal.draw_stock ? " can" : "");
  $("stock-count").textContent = `(${t.stock.cards})`;
  $("pile").replaceWith(pileEl(t.pile.top));
  if (myTurn && t.legal.take_discard) $("pile").classList.add("can");
  $("pile-count").textContent = `(${t.pile.cards.length})`;
  $("upcard-buttons").hidden = !(myTurn && t.phase === "first_upcard");
  const info = [`Hand ${v.hand_number}`, `knock limit ${t.knock_limit}${t.knock_limit === 0 ? " (gin only)" : ""}`];
  if (t.multiplier > 1) info.push(`score ×${t.multiplier} (spade upcard)`);
  $("hand-info").textContent = info.join(" · ");

  const cards = orderedHand(v);
  let prevMeld = null, seenLoose = false;
  cards.forEach((c, i) => {
    const el = cardEl(c.card, "clickable");
    if (c.meld !== null && c.meld !== undefined) {
      el.classList.add("meld");
      if (prevMeld !== null && prevMeld !== c.meld && !manualOrder(v)) el.classList.add("meld-start");
    } else if (!seenLoose && i > 0 && !manualOrder(v)) { el.classList.add("loose-start"); }
    if (c.meld === null || c.meld === undefined) seenLoose = true;
    prevMeld = c.meld ?? null;
    if (c.just_drawn) el.classList.add("just-drawn");
    if (c.locked) { el.classList.add("locked"); el.title = t.locked_reason; }
    if (myTurn && t.phase === "discard") {
      el.classList.add("playable");
      if (ui.knockMode) el.classList.add(t.legal.knock.includes(c.card) ? "knockable" : "not-knockable");
      if (c.deadwood_after_discard !== null && c.deadwood_after_discard !== undefined && !c.locked)
        el.title = `Discard it: ${c.deadwood_after_discard} deadwood left`;
    }
    if (i === ui.focus) el.classList.add("focus");
    el.draggable = true;
    el.addEventListener("click", () => onCardClick(c.card));
    el.addEventListener("dragstart", (e) => { ui.dragCard = c.card; e.dataTransfer.effectAllowed = "move"; });
    el.addEventListener("dragover", (e) => e.preventDefault());
    el.addEventListener("drop", (e) => { e.preventDefault(); dropOn(c.card); });
    hand.append(el);
  });
  $("deadwood").textContent = String(t.deadwood);
  $("deadwood-after").textContent = t.phase === "discard" && myTurn && t.best_deadwood_after_discard !== null
    ? `(${t.best_deadwood_after_discard} after your best discard)` : "";
  const kb = $("btn-knock");
  kb.hidden = !(myTurn && t.knock_button);
  kb.textContent = t.knock_button || "Knock";
  kb.classList.toggle("active", ui.knockMode);
  $("btn-biggin").hidden = !(myTurn && t.legal.big_gin);
}

// The hand in the player's own order (drag and drop) or the server's: melds first, then deadwood.
function orderKey(v) { return `hg.order.${v.match_id}`; }
function manualOrder(v) { return !!localStorage.getItem(orderKey(v)); }
function orderedHand(v) {
  const cards = v.table.hand;
  const saved = localStorage.getItem(orderKey(v));
  if (!saved) return cards;
  const order = JSON.parse(saved);
  const pos = new Map(order.map((c, i) => [c, i]));
  return cards.slice().sort((a, b) => (pos.has(a.card) ? pos.get(a.card) : 1e3) - (pos.has(b.card) ? pos.get(b.card) : 1e3));
}
function dropOn(target) {
  const v = ui.view;
  if (!v || !v.table || !ui.dragCard || ui.dragCard === target) return;
  const order = orderedHand(v).map((c) => c.card).filter((c) => c !== ui.dragCard);
  order.splice(order.indexOf(target), 0, ui.dragCard);
  localStorage.setItem(orderKey(v), JSON.stringify(order));
  ui.dragCard = null;
  render();
}

function renderSheet(sheet, box, rules) {
  box.innerHTML = "";
  const tbl = document.createElement("table"); tbl.className = "sheet";
  const head = document.createElement("tr");
  head.innerHTML = "<th></th>" + sheet.games.map((g) => `<th>${sheet.games.length > 1 ? "Game " + g.number : "Game"}</th>`).join("") + "<th>Total</th>";
  tbl.append(head);
  const who = ["You", "Opponent"], key = ["you", "opponent"];
  for (let p = 0; p < 2; p++) {
    const tr = document.createElement("tr");
    let cells = `<td>${who[p]}</td>`;
    for (const g of sheet.games) {
      const open = g.opened[p], won = g.winner === key[p];
      const txt = open ? `${g.points[p]}` : "—";
      const boxes = g.hands[p] ? ` <small title="hands won in this game (boxes)">(${g.hands[p]})</small>` : "";
      cells += `<td class="${open ? "" : "unopened"} ${won ? "won" : ""}" title="${open ? "column opened" : "column not opened yet"}">${txt}${boxes}${won ? " ✓" : ""}</td>`;
    }
    cells += `<td>${sheet.totals[p]}</td>`;
    tr.innerHTML = cells; tbl.append(tr);
  }
  if (sheet.games.some((g) => g.ended)) {
    for (let p = 0; p < 2; p++) {
      const tr = document.createElement("tr"); tr.className = "bonus";
      let cells = `<td><small>${who[p]}: bonuses</small></td>`;
      for (const g of sheet.games) {
        if (!g.ended) { cells += "<td></td>"; continue; }
        const parts = [];
        if (g.winner === key[p] && g.game_bonus) parts.push(`game ${g.game_bonus}${g.shutout ? " (shutout)" : ""}`);
        if (g.box_bonus[p]) parts.push(`boxes ${g.box_bonus[p]}`);
        if (g.doubled && g.winner === key[p]) parts.push("×2");
        cells += `<td><small>${parts.join(", ") || "–"}</small></td>`;
      }
      tr.innerHTML = cells + "<td></td>"; tbl.append(tr);
    }
    const tr = document.createElement("tr"); tr.className = "total";
    tr.innerHTML = "<td>With bonuses</td>" + sheet.games.map((g) => `<td>${g.ended ? g.totals[0] + "–" + g.totals[1] : "in play"}</td>`).join("") + `<td>${sheet.totals[0]}–${sheet.totals[1]}</td>`;
    tbl.append(tr);
  }
  box.append(tbl);
  const note = document.createElement("div"); note.className = "sheet-note";
  let text = `Target ${sheet.target}. — : column not opened yet; (n): hands won in that game (boxes); ✓ game won.`;
  if (rules && rules.columns > 1) text += " Each hand you win opens your next column and scores in every open column still in play.";
  if (sheet.match_over) {
    const w = sheet.match_winner === "you" ? "You win the match" : sheet.match_winner === "opponent" ? "The opponent wins the match" : "The match is a draw";
    text = `${w}: games ${sheet.games_won[0]}–${sheet.games_won[1]}, totals ${sheet.totals[0]}–${sheet.totals[1]}. ` + text;
  }
  note.textContent = text;
  box.append(note);
}

function renderHistory(history) {
  const ol = $("history"); ol.innerHTML = "";
  for (const h of history) {
    const li = document.createElement("li");
    li.textContent = h.kind === "wall" ? "wall: a draw" :
      `${h.kind.replace("_", " ")}: ${h.winner === "you" ? "you" : "opponent"} +${h.points}` +
      (h.games_ended.length ? ` (ends game ${h.games_ended.join(", ")})` : "");
    ol.append(li);
  }
}

const RESULT_TITLE = { knock: "Knock", gin: "Gin!", big_gin: "Big gin!", undercut: "Undercut!", wall: "The wall: a draw" };

function renderResult(v) {
  const r = v.result;
  let title = RESULT_TITLE[r.kind];
  if (r.kind !== "wall") title += ` — ${r.winner === "you" ? "you score" : "the opponent scores"} ${r.points}`;
  $("result-title").textContent = `Hand ${r.number}: ${title}`;
  $("result-text").textContent = prettyCards(r.explanation);
  const box = $("result-hands"); box.innerHTML = "";
  for (const who of ["opponent", "you"]) {
    const h = r.hands[who];
    const side = document.createElement("div"); side.className = "result-side";
    const label = document.createElement("div");
    if (!h) { label.textContent = "Opponent: nobody lays down after a wall; its hand stays hidden."; side.append(label); box.append(side); continue; }
    label.innerHTML = `<strong>${who === "you" ? "You" : "Opponent"}</strong>${h.role ? " (" + h.role + ")" : ""} — deadwood <strong>${h.deadwood}</strong>`;
    side.append(label);
    const row = document.createElement("div"); row.className = "row";
    const group = (cards, cls, text) => {
      const wrap = document.createElement("div");
      const g = document.createElement("div"); g.className = "group " + cls;
      for (const c of cards) g.append(cardEl(c, cls === "meld" ? "meld" : ""));
      const l = document.createElement("div"); l.className = "group-label"; l.textContent = text;
      wrap.append(g, l); row.append(wrap);
    };
    if (h.cards) group(h.cards, "", "hand");
    for (const m of h.melds) group(m, "meld", "meld");
    if (h.laid_off.length) group(h.laid_off, "laidoff", "laid off on the knocker's melds");
    if (h.deadwood_cards.length) group(h.deadwood_cards, "deadwood", "deadwood");
    side.append(row); box.append(side);
  }
  renderSheet(v.scoresheet, $("result-sheet"), v.rules);
  const over = v.status === "match_over";
  $("btn-next").hidden = over;
  $("btn-result-new").hidden = !over;
  $("btn-result-replay").hidden = !over;
}

// "7h" -> "7♥" in the server's sentences
function prettyCards(text) {
  return (text || "").replace(/(^|[^A-Za-z0-9])([A2-9TJQK])([cdhs])(?![A-Za-z0-9])/g,
    (all, pre, r, s) => pre + (RANK_TEXT[r] || r) + SUIT_SYMBOL[s]);
}

function showMessage(text, error = false) {
  const m = $("message");
  const t = prettyCards(text);
  m.textContent = t.charAt(0).toUpperCase() + t.slice(1);
  m.classList.toggle("error", !!error);
}

// ---- clicks ------------------------------------------------------------------------------------

function myTurn() { const v = ui.view; return v && v.status === "playing" && v.table && v.table.to_move === "you"; }

function onStockClick() {
  if (!myTurn()) return;
  const t = ui.view.table;
  if (t.phase === "first_upcard") { showMessage("First upcard: take it (click the pile) or pass; the stock comes after both pass.", true); return; }
  move({ type: "draw_stock" });
}

function onPileClick() {
  if (!myTurn()) return;
  const t = ui.view.table;
  if (t.phase === "discard") { showMessage("You have drawn already: click a card of your hand to discard it.", true); return; }
  move({ type: "take_discard" });
}

function onCardClick(card) {
  if (!myTurn()) return;
  const t = ui.view.table;
  if (t.phase !== "discard") { showMessage(t.phase === "first_upcard" ? "First take the upcard or pass." : "Draw first: click the stock or the discard pile.", true); return; }
  move({ type: ui.knockMode ? "knock" : "discard", card });
}

function toggleKnock(on) {
  if (!myTurn() || !ui.view.table.knock_button) return;
  ui.knockMode = on === undefined ? !ui.knockMode : on;
  render();
  if (ui.knockMode) showMessage(`${ui.view.table.knock_button}: now click the card to discard (the green ones can go). Esc or ${ui.view.table.knock_button} again to cancel.`);
  else showMessage(ui.view.message);
}

async function hint() {
  if (!myTurn() || ui.busy) return;
  const v = ui.view;
  try {
    const h = await api("POST", `/api/matches/${v.match_id}/hint`, { agent: prefs.hintAgent || undefined });
    document.querySelectorAll(".hinted").forEach((e) => e.classList.remove("hinted"));
    if (h.target === "stock") $("stock").classList.add("hinted");
    if (h.target === "pile") $("pile").classList.add("hinted");
    if (h.target === "card") { const el = document.querySelector(`#player-hand .card[data-card="${h.card}"]`); if (el) el.classList.add("hinted"); }
    showMessage("Hint: " + h.message);
  } catch (e) { showMessage(e.message, true); }
}

function newMatch(body) { request(() => api("POST", "/api/matches", body || {})); }

async function showStats() {
  const s = await api("GET", "/api/stats");
  const rows = s.by_opponent.map((g) => {
    const wr = g.win_rate.value === null ? "–" : `${(100 * g.win_rate.value).toFixed(0)}%`;
    const ci = g.win_rate.low === null ? "" : ` <small>[${(100 * g.win_rate.low).toFixed(0)}–${(100 * g.win_rate.high).toFixed(0)}%]</small>`;
    return `<tr><td>${g.opponent} <small>(${g.rules})</small></td><td>${g.finished}</td><td>${g.won}</td><td>${wr}${ci}</td>` +
      `<td>${g.best_margin === null ? "–" : "+" + g.best_margin}</td><td>${g.current_streak}</td><td>${g.best_streak}</td><td>${g.abandoned}</td></tr>`;
  }).join("");
  $("stats-body").innerHTML = rows ? `<table class="stats"><tr><th>Opponent</th><th>Played</th><th>Won</th><th>Win rate [95%]</th>` +
    `<th>Best margin</th><th>Streak</th><th>Best streak</th><th>Abandoned</th></tr>${rows}</table>` +
    `<p><small>Finished matches; a draw counts half. <code>hollywood play-results</code> prints more, with intervals.</small></p>`
    : "<p>No match played yet.</p>";
  $("stats-dialog").showModal();
}

// ---- keyboard ----------------------------------------------------------------------------------

const KEY_INDEX = "1234567890-";

function onKey(e) {
  if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT" || e.ctrlKey || e.metaKey || e.altKey) return;
  const v = ui.view;
  if (!v) return;
  const k = e.key.toLowerCase();
  if ($("result-dialog").open) {
    if ((k === "enter" || k === "n") && v.status === "hand_over") { e.preventDefault(); nextHand(); }
    return;
  }
  if (document.querySelector("dialog[open]")) return;
  if (k === "?") { $("help-dialog").showModal(); return; }
  if (k === "h") { hint(); return; }
  if (!myTurn()) return;
  const t = v.table;
  const cards = orderedHand(v);
  if (k === "s") onStockClick();
  else if (k === "p") onPileClick();
  else if (k === "x" && t.legal.pass) move({ type: "pass" });
  else if (k === "k") toggleKnock();
  else if (k === "escape") toggleKnock(false);
  else if (k === "b" && t.legal.big_gin) move({ type: "big_gin" });
  else if (KEY_INDEX.includes(e.key) && KEY_INDEX.indexOf(e.key) < cards.length) onCardClick(cards[KEY_INDEX.indexOf(e.key)].card);
  else if (k === "arrowleft" || k === "arrowright") {
    e.preventDefault();
    ui.focus = Math.max(0, Math.min(cards.length - 1, (ui.focus < 0 ? 0 : ui.focus + (k === "arrowleft" ? -1 : 1))));
    render();
  } else if (k === "enter" && ui.focus >= 0 && ui.focus < cards.length) { e.preventDefault(); onCardClick(cards[ui.focus].card); }
}

function nextHand() {
  const v = ui.view;
  request(() => api("POST", `/api/matches/${v.match_id}/next`, { version: v.version }));
}

// ---- start -------------------------------------------------------------------------------------

function wire() {
  $("stock").addEventListener("click", onStockClick);
  $("pile").addEventListener("click", onPileClick);
  $("btn-take").addEventListener("click", () => move({ type: "take_discard" }));
  $("btn-pass").addEventListener("click", () => move({ type: "pass" }));
  $("btn-knock").addEventListener("click", () => toggleKnock());
  $("btn-biggin").addEventListener("click", () => move({ type: "big_gin" }));
  $("btn-sort").addEventListener("click", () => { if (ui.view) { localStorage.removeItem(orderKey(ui.view)); render(); } });
  $("btn-next").addEventListener("click", nextHand);
  $("btn-new").addEventListener("click", () => newMatch());
  $("btn-result-new").addEventListener("click", () => newMatch());
  const replay = () => ui.view && request(() => api("POST", `/api/matches/${ui.view.match_id}/replay`));
  $("btn-replay").addEventListener("click", replay);
  $("btn-result-replay").addEventListener("click", replay);
  $("btn-daily").addEventListener("click", () => newMatch({ daily: true }));
  $("form-number").addEventListener("submit", (e) => {
    e.preventDefault();
    const n = Number($("input-number").value);
    if (!Number.isInteger(n) || n < 0) { showMessage("A match number is a whole number, 0 or more.", true); return; }
    newMatch({ seed: n });
  });
  $("btn-hint").addEventListener("click", hint);
  $("btn-stats").addEventListener("click", () => showStats().catch((e) => showMessage(e.message, true)));
  $("btn-options").addEventListener("click", () => $("options-dialog").showModal());
  $("btn-help").addEventListener("click", () => $("help-dialog").showModal());
  document.querySelectorAll("dialog .close").forEach((b) => b.addEventListener("click", () => b.closest("dialog").close()));
  $("result-dialog").addEventListener("cancel", (e) => e.preventDefault());  // Esc does not skip a result
  $("opt-four-colour").checked = prefs.fourColour;
  $("opt-four-colour").addEventListener("change", (e) => { prefs.fourColour = e.target.checked; render(); });
  $("opt-speed").value = String(prefs.speed);
  $("opt-speed").addEventListener("change", (e) => { prefs.speed = Number(e.target.value); });
  $("opt-felt").value = prefs.felt;
  $("opt-felt").addEventListener("change", (e) => { prefs.felt = e.target.value; render(); });
  $("opt-hint").addEventListener("change", (e) => { prefs.hintAgent = e.target.value; });
  document.addEventListener("keydown", onKey);
}

async function start() {
  wire();
  ui.config = await api("GET", "/api/config");
  const sel = $("opt-hint");
  for (const a of ui.config.hint_agents) { const o = document.createElement("option"); o.value = a; o.textContent = a; sel.append(o); }
  if (ui.config.hint_agents.includes(prefs.hintAgent)) sel.value = prefs.hintAgent; else prefs.hintAgent = sel.value;
  $("btn-daily").title = `Today's deal: match #${ui.config.daily_seed}, the same for everyone today`;
  let view = null;
  try { view = await api("GET", "/api/matches/current"); } catch (e) { if (e.status !== 404) throw e; }
  if (!view) view = await api("POST", "/api/matches", {});
  await show(view, { animate: false });
}

start().catch((e) => showMessage(`Could not start: ${e.message}`, true));
