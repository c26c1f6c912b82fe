// The live table: one WebSocket to the bot (./ws); the first frame proves who we are with Telegram's initData.
// No telegram-web-app.js (nothing from a CDN): the little of the Mini App protocol used here is spoken directly
// (launch parameters in the address's #fragment, events through TelegramWebviewProxy / window.parent), and
// window.Telegram.WebApp is used instead when a client provides it. Outside Telegram the page still loads, and
// the bot refuses it for want of initData.
"use strict";

const tg = (() => {
  const launch = new URLSearchParams(location.hash.slice(1));
  const app = window.Telegram && window.Telegram.WebApp;
  const initData = (app && app.initData) || launch.get("tgWebAppData") || "";
  let theme = {};
  try { theme = (app && app.themeParams) || JSON.parse(launch.get("tgWebAppThemeParams") || "{}"); } catch (e) { theme = {}; }
  const handlers = {};
  function receive(type, data) { (handlers[type] || []).forEach((f) => f(data)); }
  window.Telegram = window.Telegram || {};
  const earlier = window.Telegram.WebView && window.Telegram.WebView.receiveEvent;
  window.Telegram.WebView = Object.assign(window.Telegram.WebView || {}, {
    receiveEvent(type, data) { receive(type, data); if (earlier) earlier(type, data); },
  });
  window.addEventListener("message", (e) => {
    try { const m = JSON.parse(e.data); if (m && m.eventType) receive(m.eventType, m.eventData); } catch (err) { /* not ours */ }
  });
  function post(type, data) {
    try {
      if (window.TelegramWebviewProxy) window.TelegramWebviewProxy.postEvent(type, JSON.stringify(data || {}));
      else if (window.external && "notify" in window.external) window.external.notify(JSON.stringify({ eventType: type, eventData: data }));
      else if (window.parent !== window) window.parent.postMessage(JSON.stringify({ eventType: type, eventData: data }), "*");
    } catch (e) { /* outside Telegram: nothing to tell */ }
  }
  return {
    initData, theme,
    on(type, f) { (handlers[type] = handlers[type] || []).push(f); },
    ready() { if (app) { app.ready(); app.expand(); } else { post("web_app_ready"); post("web_app_expand"); } },
    backButton(visible) {
      if (app && app.BackButton) { visible ? app.BackButton.show() : app.BackButton.hide(); }
      else post("web_app_setup_back_button", { is_visible: visible });
    },
    onBack(f) { if (app && app.BackButton) app.BackButton.onClick(f); else this.on("back_button_pressed", f); },
    haptic() {
      if (app && app.HapticFeedback) app.HapticFeedback.notificationOccurred("success");
      else post("web_app_trigger_haptic_feedback", { type: "notification", notification_type: "success" });
    },
    close() { if (app) app.close(); else post("web_app_close"); },
    openTelegramLink(path) { post("web_app_open_tg_link", { path_full: path }); },
  };
})();

function applyTheme(theme) {
  const names = { bg_color: "--bg", text_color: "--text", hint_color: "--hint", button_color: "--button",
    button_text_color: "--button-text", secondary_bg_color: "--secondary-bg" };
  for (const [key, variable] of Object.entries(names)) {
    if (theme && /^#[0-9a-fA-F]{6}$/.test(theme[key] || "")) document.documentElement.style.setProperty(variable, theme[key]);
  }
}
applyTheme(tg.theme);
tg.on("theme_changed", (data) => applyTheme(data && data.theme_params));

const $ = (css) => document.querySelector(css);
const table = new URLSearchParams(location.search).get("table") || "";
let socket = null, texts = {}, view = null, refused = false, retry = 500, received = 0, panelClosed = false, playLink = "";
window.liveFrames = [];

function el(tag, attrs, children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") e.textContent = v; else if (k === "class") e.className = v; else e.setAttribute(k, v);
  }
  (children || []).forEach((c) => e.appendChild(c));
  return e;
}

function tile(name, laizi, extra) {
  const src = name ? `tile/${name}.png${name === laizi ? "?laizi=1" : ""}` : "tile/back.png";
  return el("img", { class: "t " + (extra || ""), src, alt: name || "🀫", "data-tile": name || "" });
}

function say(text) {
  const box = $("#notice");
  box.textContent = text;
  box.hidden = !text;
  clearTimeout(say.timer);
  if (text) say.timer = setTimeout(() => { box.hidden = true; }, 2500);
}

function connect() {
  const url = new URL("ws", location.href);
  url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
  socket = new WebSocket(url);
  socket.onopen = () => socket.send(JSON.stringify({ type: "hello", init_data: tg.initData, table }));
  socket.onmessage = (e) => take(JSON.parse(e.data));
  socket.onclose = () => {
    if (refused) return;
    $("#status").textContent = texts.live_offline || "…";
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 8000);
  };
}

function take(frame) {
  window.liveFrames.push(frame);
  if (window.liveFrames.length > 3000) window.liveFrames.shift();
  if (frame.type === "hello") {
    texts = frame.texts; retry = 500; playLink = frame.play || "";
    document.documentElement.lang = frame.lang === "en" ? "en" : "zh";
    $("#panel-close").textContent = texts.live_result_close;
    $("#ready").textContent = texts.btn_ready;
  } else if (frame.type === "refused") {
    refused = true;
    $("#status").textContent = frame.text;
  } else if (frame.type === "notice") {
    say(frame.text);
  } else if (frame.type === "closed") {
    $("#status").textContent = texts.live_closed;
    $("#actions").replaceChildren();
    if (playLink) {  // another match, with anyone: the bot's /play in the private chat
      const quick = document.createElement("button");
      quick.textContent = texts.btn_quick;
      quick.addEventListener("click", () => tg.openTelegramLink(playLink));
      $("#actions").append(quick);
    }
    $("#clock").hidden = true;
  } else if (frame.type === "waiting") {
    $("#title").textContent = frame.title;
    $("#status").textContent = texts.live_waiting;
  } else if (frame.type === "view") {
    const before = view;
    view = frame; received = performance.now();
    draw(frame);
    if (frame.actions.length && !(before && before.stamp === frame.stamp)) tg.haptic();
  }
}

function press(code, stamp) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: "press", stamp, code }));
}

function seatBox(v, seat, pos) {
  const box = $(`.seat[data-pos="${pos}"]`);
  const name = v.names[seat];
  const total = el("span", { class: "count", text: `${v.totals[seat] >= 0 ? "+" : ""}${v.totals[seat]}` });
  if (!(pos === 0 && v.seat !== null)) {  // how many tiles another seat holds, face down
    total.append(document.createTextNode(" · "), tile(null, null), document.createTextNode(`×${v.hand_sizes[seat]}`));
  }
  const who = el("div", { class: "who" }, [
    el("span", {}, [el("b", { text: `${v.winds[seat]}${seat === v.dealer ? texts.dealer_mark : ""} ${name}` })]),
    total,
  ]);
  const melds = el("div", { class: "row melds" }, v.melds[seat].map((m) =>
    el("span", { class: "meld" }, m.tiles.map((x) => tile(x, v.laizi)))));
  const last = v.last_discard && v.last_discard[0] === seat ? v.rivers[seat].length - 1 : -1;
  const river = el("div", { class: "row river" }, v.rivers[seat].map((r, i) =>
    tile(r.tile, v.laizi, (r.thrown ? "thrown" : "") + (i === last ? " last" : ""))));
  const parts = [who, melds, river];
  if (v.revealed && pos !== 0) parts.push(el("div", { class: "row" }, v.revealed[seat].map((x) => tile(x, v.laizi))));
  box.replaceChildren(...parts);
  box.classList.toggle("turn", v.turn === seat && v.phase !== "over");
}

function drawHand(v) {
  const discards = {};
  v.actions.filter((a) => a.kind === "discard").forEach((a) => { discards[a.code.slice(1)] = a.code; });
  const button = (name, cls) => {
    const b = el("button", { class: "tile " + (cls || ""), "data-tile": name }, [tile(name, v.laizi)]);
    if (discards[name]) { b.dataset.code = discards[name]; b.onclick = () => press(discards[name], v.stamp); } else b.disabled = true;
    return b;
  };
  const tiles = v.hand.map((x) => button(x));
  if (v.drawn) tiles.push(button(v.drawn, "drawn"));
  $("#hand").replaceChildren(...tiles);
  const actions = v.actions.filter((a) => a.kind !== "discard").map((a) => {
    const b = el("button", { text: a.label, "data-code": a.code, class: "action" });
    b.onclick = () => press(a.code, v.stamp);
    return b;
  });
  if (v.tuoguan) {
    const back = el("button", { text: texts.btn_back, "data-code": "back", class: "action" });
    back.onclick = () => press("back", "0");
    actions.push(back);
  } else if (v.stamp) {  // 托管 when asked, on the decision in front of them (as the chat's keyboard)
    const auto = el("button", { text: texts.btn_auto, "data-code": "auto", class: "action" });
    auto.onclick = () => press("auto", v.stamp);
    actions.push(auto);
  }
  $("#actions").replaceChildren(...actions);
}

function drawResult(v) {
  const r = v.result;
  if (!r) { $("#panel").hidden = true; panelClosed = false; return; }
  $("#result-heading").textContent = r.heading;
  $("#result-lines").replaceChildren(...r.lines.map((line) => el("li", { text: line })));
  $("#result-breakdown").replaceChildren(...r.breakdown.map((line) => el("li", { text: line })));
  $("#result-hands").replaceChildren(...(v.revealed || []).map((h, s) =>
    el("div", {}, [el("div", { text: `${v.winds[s]} ${v.names[s]}` }), el("div", { class: "row" }, h.map((x) => tile(x, v.laizi)))])));
  $("#ready").hidden = !v.ready;
  $("#panel").hidden = panelClosed;
}

function draw(v) {
  $("#title").textContent = `${v.title} · #${v.hand_number}` + (v.seat === null ? ` · ${texts.live_spectator}` : "");
  $("#laizi").replaceChildren(document.createTextNode(texts.live_laizi), tile(v.laizi, v.laizi), tile(v.indicator, null));
  $("#wall").textContent = `${texts.live_left} ${v.wall}`;
  $("#waits").hidden = !v.waits.length;  // 听牌提示: the tiles that would complete the hand
  $("#waits").replaceChildren(document.createTextNode(texts.live_waits), ...v.waits.map((x) => tile(x, v.laizi)));
  $("#status").textContent = v.status;
  const me = v.seat === null ? 0 : v.seat;
  for (let pos = 0; pos < 4; pos++) seatBox(v, (me + pos) % 4, pos);
  drawHand(v);
  drawResult(v);
  tick();
}

function tick() {
  const clock = $("#clock");
  if (!view || view.seconds_left === null || view.result) { clock.hidden = true; return; }
  const left = Math.max(0, view.seconds_left - (performance.now() - received) / 1000);
  clock.hidden = false;
  clock.textContent = `${Math.ceil(left)} s`;
  clock.classList.toggle("urgent", left < 5);
}
setInterval(tick, 250);

$("#ready").onclick = () => press("ready", "0");
$("#panel-close").onclick = () => { panelClosed = true; $("#panel").hidden = true; };
tg.onBack(() => { if (!$("#panel").hidden) { panelClosed = true; $("#panel").hidden = true; } else tg.close(); });
tg.backButton(true);
tg.ready();
connect();
