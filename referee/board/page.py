"""The board's page: one HTML document, no external files (a TV on the table's network
may have no internet). It reads /events (and /state once, where EventSource is missing)
and draws every board with DOM text nodes only (a player's name is never parsed as
HTML). Large type from two metres on a TV (1920x1080), one column on a phone."""

PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>referee board</title>
<style>
:root { --bg:#14161c; --card:#1f232c; --ink:#f2f2f2; --dim:#9aa3b2; --turn:#f5b700;
        --run:#38c172; --bad:#e3342f; font-family: system-ui, "DejaVu Sans", sans-serif; }
* { box-sizing: border-box; }
body { margin:0; background:var(--bg); color:var(--ink); font-size:clamp(16px, 1.35vw, 34px); }
main { padding:1.2vw 1.6vw; display:grid; gap:1vw;
       grid-template-columns: minmax(0, 3fr) minmax(0, 1.25fr);
       grid-template-areas: "head head" "players side"; min-height:100vh; align-content:start; }
header { grid-area:head; display:flex; flex-wrap:wrap; align-items:baseline; gap:.3em 1.2em; }
h1 { margin:0; font-size:2.1em; }
#headline { color:var(--dim); font-size:1.05em; }
#winner { width:100%; background:var(--turn); color:#111; font-weight:700; font-size:1.8em;
          padding:.25em .6em; border-radius:.3em; }
#error { width:100%; background:var(--bad); padding:.3em .6em; border-radius:.3em; }
#link { margin-left:auto; color:var(--dim); font-size:.8em; }
#link.lost { color:var(--bad); }
#players { grid-area:players; display:grid; gap:1vw; align-content:start;
           grid-template-columns: repeat(auto-fit, minmax(min(100%, 13em), 1fr)); }
.player { background:var(--card); border-radius:.5em; padding:.7em .9em; border:.18em solid transparent; }
.player.turn { border-color:var(--turn); }
.top { display:flex; justify-content:space-between; align-items:baseline; gap:.5em; }
.name { font-size:1.7em; font-weight:700; overflow-wrap:anywhere; }
.player.turn .name::after { content:" \\25C0"; color:var(--turn); font-size:.7em; }
.clock { font-variant-numeric:tabular-nums; font-size:1.3em; color:var(--dim); }
.clock.running { color:var(--run); font-weight:700; }
.subtitle { color:var(--dim); margin:.1em 0 .4em; }
.stats { display:flex; flex-wrap:wrap; gap:.4em 1.2em; margin:.3em 0; }
.stat b { display:block; font-size:1.9em; line-height:1.05; }
.stat span { color:var(--dim); font-size:.85em; }
.items { list-style:none; margin:.4em 0 0; padding:0; }
.items li { padding:.15em 0; border-top:1px solid #333a47; }
.items .detail { color:var(--turn); margin-left:.5em; }
.tag { display:inline-block; background:#333a47; border-radius:.3em; padding:0 .35em; margin-left:.35em; font-size:.85em; }
aside { grid-area:side; display:grid; gap:1vw; align-content:start; }
section { background:var(--card); border-radius:.5em; padding:.6em .9em; }
h2 { margin:0 0 .3em; font-size:1em; color:var(--dim); font-weight:600; text-transform:uppercase; letter-spacing:.05em; }
dl { display:grid; grid-template-columns:auto 1fr; gap:.1em .8em; margin:0; }
dt { color:var(--dim); } dd { margin:0; overflow-wrap:anywhere; }
#dice { display:flex; flex-wrap:wrap; gap:.4em; align-items:center; }
.group { display:flex; flex-wrap:wrap; gap:.3em; align-items:center; margin-right:.6em; }
.group .what { width:100%; color:var(--dim); font-size:.85em; }
.die { width:2.6em; height:2.6em; border-radius:.45em; background:#fafafa; color:#111;
       display:flex; align-items:center; justify-content:center; font-weight:700; }
.die svg { width:100%; height:100%; }
.die.symbol { width:auto; min-width:2.6em; padding:0 .4em; font-size:.95em; }
.die.mask { background:#222; color:#fafafa; border:.12em solid #fafafa; }
.die.mask.white { background:#fafafa; border-color:#222; }
.die.mask.white path { fill:#222; } .die.mask.white ellipse { fill:#fafafa; }
.die.symbol { flex-direction:column; line-height:1.1; }
.die .icon { font-size:.55em; font-weight:400; opacity:.85; }
#total { font-size:1.5em; font-weight:700; margin-left:.3em; }
#log { list-style:none; margin:0; padding:0; font-size:.9em; }
#log li { padding:.2em 0 0; margin-bottom:.2em; border-top:1px solid #333a47; overflow-wrap:anywhere;
          display:-webkit-box; -webkit-box-orient:vertical; -webkit-line-clamp:3; overflow:hidden; }
#log .seq { color:var(--dim); margin-right:.4em; }
#log .undone { text-decoration:line-through; color:var(--dim); }
@media (max-width: 700px) {
  body { font-size:16px; }
  main { grid-template-columns: minmax(0, 1fr); grid-template-areas: "head" "players" "side"; padding:10px; gap:10px; }
  h1 { font-size:1.6em; }
  .name { font-size:1.4em; }
  .stat b { font-size:1.5em; }
}
</style>
</head>
<body>
<main>
  <header>
    <h1 id="title">referee board</h1><span id="headline"></span><span id="link">connecting</span>
    <div id="winner" hidden></div><div id="error" hidden></div>
  </header>
  <div id="players"></div>
  <aside>
    <section id="roll-box" hidden><h2 id="roll-label">Last roll</h2><div id="dice"></div></section>
    <section><h2>Table</h2><dl id="facts"></dl></section>
    <section><h2>Log</h2><ol id="log"></ol></section>
  </aside>
</main>
<script>
"use strict";
let board = null, received = 0;
const $ = (id) => document.getElementById(id);
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}
function mmss(s) {
  s = Math.max(0, Math.floor(s));
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  const two = (n) => String(n).padStart(2, "0");
  return h ? h + ":" + two(m) + ":" + two(r) : m + ":" + two(r);
}
const SVG = "http://www.w3.org/2000/svg";
function svg(tag, attrs) {
  const e = document.createElementNS(SVG, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  return e;
}
const PIPS = {1:[[50,50]], 2:[[28,28],[72,72]], 3:[[28,28],[50,50],[72,72]],
  4:[[28,28],[72,28],[28,72],[72,72]], 5:[[28,28],[72,28],[50,50],[28,72],[72,72]],
  6:[[28,25],[72,25],[28,50],[72,50],[28,75],[72,75]]};
function d6(face) {
  const box = el("div", "die d6"); box.title = "d6: " + face;
  const s = svg("svg", {viewBox:"0 0 100 100", role:"img"});
  const t = svg("title", {}); t.textContent = String(face); s.appendChild(t);
  for (const [x, y] of (PIPS[face] || [])) s.appendChild(svg("circle", {cx:x, cy:y, r:9, fill:"#111"}));
  if (!PIPS[face]) { box.textContent = String(face); return box; }
  box.appendChild(s); return box;
}
function mask(face) {
  // the mask die (XO-1): a domino mask above as many hit marks as the face counts
  const box = el("div", "die mask"); box.title = "mask die: " + face;
  const s = svg("svg", {viewBox:"0 0 100 100", role:"img"});
  const t = svg("title", {}); t.textContent = String(face); s.appendChild(t);
  s.appendChild(svg("path", {fill:"#fafafa", d:"M12 30 Q50 18 88 30 Q90 52 70 56 Q58 57 50 46 Q42 57 30 56 Q10 52 12 30 Z"}));
  s.appendChild(svg("ellipse", {cx:33, cy:38, rx:8, ry:5, fill:"#222"}));
  s.appendChild(svg("ellipse", {cx:67, cy:38, rx:8, ry:5, fill:"#222"}));
  const xs = {0:[], 1:[50], 2:[38,62], 3:[28,50,72]}[face] || [];
  for (const x of xs) s.appendChild(svg("circle", {cx:x, cy:78, r:8, fill:"#f5b700"}));
  if (face === 0) s.appendChild(svg("circle", {cx:50, cy:78, r:8, fill:"none", stroke:"#9aa3b2", "stroke-width":3}));
  box.appendChild(s); return box;
}
function die(group, face) {
  if (group.die === "d6") return d6(face);
  if (group.die === "mask") {
    const box = mask(face);
    if (group.league === "heroes") box.classList.add("white");  // XO-1: White Mask
    return box;
  }
  // a declared die: its label's colours; a face with an icon names it under the symbol
  const box = el("div", "die symbol", face);
  if (group.color) box.style.background = group.color;
  if (group.ink) box.style.color = group.ink;
  const icon = (group.icons || {})[face];
  if (icon) { box.title = icon; box.appendChild(el("small", "icon", icon)); }
  return box;
}
function drawPlayers(b) {
  const root = $("players"); root.replaceChildren();
  for (const p of b.players) {
    const card = el("div", "player" + (p.turn ? " turn" : ""));
    card.dataset.player = p.name;
    const top = el("div", "top");
    top.appendChild(el("div", "name", p.name));
    const clock = el("div", "clock" + (p.running ? " running" : ""), mmss(p.seconds));
    clock.dataset.seconds = p.seconds; if (p.running) clock.dataset.running = "1";
    top.appendChild(clock); card.appendChild(top);
    if (p.subtitle) card.appendChild(el("div", "subtitle", p.subtitle));
    const stats = el("div", "stats");
    for (const [label, value] of (p.stats || [])) {
      if (value === null || value === undefined) continue;
      const st = el("div", "stat"); st.appendChild(el("b", "", value)); st.appendChild(el("span", "", label));
      stats.appendChild(st);
    }
    card.appendChild(stats);
    if ((p.items || []).length) {
      const ul = el("ul", "items");
      for (const it of p.items) {
        const li = el("li", "", it.name);
        if (it.detail) li.appendChild(el("span", "detail", it.detail));
        for (const tag of (it.tags || [])) li.appendChild(el("span", "tag", tag));
        ul.appendChild(li);
      }
      card.appendChild(ul);
    }
    root.appendChild(card);
  }
}
function drawRoll(r) {
  $("roll-box").hidden = !r;
  if (!r) return;
  $("roll-label").textContent = "Last roll" + (r.who ? " \\u00b7 " + r.who : "") + (r.label ? " \\u00b7 " + r.label : "");
  const dice = $("dice"); dice.replaceChildren();
  for (const g of r.groups) {
    const group = el("div", "group");
    if (r.groups.length > 1 && g.name) group.appendChild(el("div", "what", g.name));
    for (const f of g.faces) group.appendChild(die(g, f));
    dice.appendChild(group);
  }
  if (r.total !== null && r.total !== undefined) {
    const total = el("span", "", "= " + r.total); total.id = "total"; dice.appendChild(total);
  }
}
function draw(b) {
  board = b; received = Date.now();
  $("error").hidden = b.ok !== false;
  if (b.ok === false) { $("error").textContent = b.error; return; }
  document.title = b.title + " \\u2014 referee board";
  $("title").textContent = b.title;
  $("headline").textContent = b.headline;
  $("winner").hidden = !b.winner; $("winner").textContent = b.winner || "";
  drawPlayers(b);
  drawRoll(b.roll);
  const facts = $("facts"); facts.replaceChildren();
  for (const [k, v] of b.facts) {
    if (v === null || v === undefined || v === "") continue;
    facts.appendChild(el("dt", "", k)); facts.appendChild(el("dd", "", v));
  }
  if (b.clock && b.clock.paused) { facts.appendChild(el("dt", "", "clock")); facts.appendChild(el("dd", "", "paused")); }
  const log = $("log"); log.replaceChildren();
  for (const e of b.log.slice().reverse()) {
    const li = el("li", e.undone ? "undone" : "");
    li.appendChild(el("span", "seq", "#" + e.seq)); li.appendChild(document.createTextNode(e.text));
    log.appendChild(li);
  }
  document.body.dataset.seq = b.seq;
}
function tick() {
  if (!board || board.ok === false) return;
  const lag = (board.served_at && board.read_at) ? board.served_at - board.read_at : 0;
  for (const c of document.querySelectorAll(".clock[data-running]")) {
    c.textContent = mmss(Number(c.dataset.seconds) + lag + (Date.now() - received) / 1000);
  }
}
setInterval(tick, 500);
function connect() {
  if (!window.EventSource) { fetch("state").then((r) => r.json()).then(draw); return; }
  const events = new EventSource("events");
  events.addEventListener("state", (m) => { $("link").className = ""; $("link").textContent = "live"; draw(JSON.parse(m.data)); });
  events.onerror = () => { $("link").className = "lost"; $("link").textContent = "reconnecting\\u2026"; };
}
connect();
</script>
</body>
</html>
"""
