"use strict";
// The sandbox page: asks the sandbox (sandbox/pages.py) what your Telegram shows and shows it, keyed by message
// so that an edit replaces its message in place; what you do goes back as the update Telegram would send.

const $ = (selector, root = document) => root.querySelector(selector);
const TEXTS = {
  en: { play: "Play against the bot", group: "Group", private: "Private chat", topic: "New topic", send: "Send",
        message: "Message", general: "General", edited: "edited", topicName: "The topic's name", owner: "owner",
        seated: "You are playing at a table already.", back: "Back to it",
        intro: "A local sandbox: the real bot, talking to this page instead of Telegram.", name: "Your name",
        language: "Language", start: "Start", badName: "A name is 1 to 32 characters (not only spaces)." },
  zh: { play: "和机器人打一局", group: "群聊", private: "私聊", topic: "新话题", send: "发送",
        message: "消息", general: "综合", edited: "已编辑", topicName: "话题名称", owner: "群主",
        seated: "你已经在一张桌上打牌了。", back: "回到那张桌",
        intro: "本地沙盒: 真正的机器人, 在这个页面上而不是在 Telegram 里。", name: "你的名字",
        language: "语言", start: "开始", badName: "名字要 1 到 32 个字符 (不能只有空格)。" },
};
let key = sessionStorage.getItem("sandbox-key"); // per tab: each tab can be another person
let state = null; // the last /api/state answer
let groupId = null; // the group shown in the group pane
let topicId = null; // in the forum group, the topic shown (null: General)
let polling = false;

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

async function api(path, body) {
  const init = { headers: { "X-Sandbox-Key": key || "" } };
  if (body !== undefined) {
    init.method = "POST";
    init.body = JSON.stringify(body);
    init.headers["Content-Type"] = "application/json";
  }
  const response = await fetch(path, init);
  const data = await response.json();
  if (response.status === 401) {
    sessionStorage.removeItem("sandbox-key");
    key = null;
    showWelcome();
  } else if (!response.ok) {
    toast(data.error);
  }
  if (!response.ok) throw new Error(data.error);
  return data;
}

function toast(text, alert = false) {
  const box = $("#toast");
  box.textContent = text;
  box.className = alert ? "alert" : "";
  box.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { box.hidden = true; }, alert ? 5000 : 2500);
}

function showWelcome() {
  $("#app").hidden = true;
  $("#welcome").hidden = false;
  $("#lang").value = navigator.language.startsWith("zh") ? "zh" : "en";
  speakWelcome();
  $("#name").focus();
}

function speakWelcome() { // the first screen in the language chosen on it
  const texts = TEXTS[$("#lang").value];
  $("#intro").textContent = texts.intro;
  $("#name-label").textContent = texts.name;
  $("#lang-label").textContent = texts.language;
  $("#enter").textContent = texts.start;
}
$("#lang").addEventListener("change", speakWelcome);

async function poll() {
  if (polling) return;
  polling = true;
  let since = -1;
  while (key) {
    try {
      state = await api(`/api/state?since=${since}`);
      since = state.version;
      render();
    } catch (error) {
      await sleep(1000); // the sandbox stopped or restarted: try again
    }
    await sleep(100);
  }
  polling = false;
}

function showPane(name) {
  for (const pane of document.querySelectorAll(".pane")) {
    pane.classList.toggle("on", pane.id === name);
    const list = $(".messages", pane); // a hidden tab's chat could not scroll: it opens where the person left it
    if (pane.id === name) list.scrollTop = list.stick ? list.scrollHeight : list.top;
  }
  for (const tab of document.querySelectorAll("#tabs button")) {
    tab.classList.toggle("on", tab.dataset.pane === name);
    if (tab.dataset.pane === name) tab.classList.remove("unread");
  }
}

function render() {
  const texts = TEXTS[state.me.lang];
  $("#app").hidden = false;
  $("#welcome").hidden = true;
  $("#me").textContent = state.me.name;
  $("#play").textContent = texts.play;
  $("#newtopic").textContent = texts.topic;
  $('#tabs [data-pane="group"]').textContent = texts.group;
  $('#tabs [data-pane="private"]').textContent = texts.private;
  for (const form of document.querySelectorAll(".composer")) {
    $("input", form).placeholder = texts.message;
    $('[type="submit"]', form).textContent = texts.send;
  }
  const groups = state.chats.filter((chat) => chat.type !== "private");
  const own = state.chats.find((chat) => chat.type === "private");
  if (!groups.some((chat) => chat.id === groupId)) groupId = groups[0].id;
  const group = groups.find((chat) => chat.id === groupId);
  fillSelect($("#groups"), groups.map((chat) => [chat.id, chat.title]), groupId);
  $("#owner").textContent = group.owner ? `${texts.owner}: ${group.owner}` : ""; // its creator, an admin
  $("#topics").hidden = $("#newtopic").hidden = !group.topics;
  if (group.topics) {
    fillSelect($("#topics"), [["", texts.general], ...group.topics.map((t) => [t.id, t.name])], topicId ?? "");
  }
  $("#private .title").textContent = own.title;
  const inTopic = (message) => !group.topics || (message.topic ?? null) === topicId;
  renderMessages($("#group .messages"), group, inTopic, `${group.id}:${topicId}`);
  renderMessages($("#private .messages"), own, () => true, String(own.id));
}

function fillSelect(select, options, value) {
  const wanted = options.map(([id, label]) => `${id}=${label}`).join("\n");
  if (select.dataset.options !== wanted) {
    select.replaceChildren(...options.map(([id, label]) => Object.assign(el("option", "", label), { value: id })));
    select.dataset.options = wanted;
  }
  select.value = String(value);
}

function notePlace(list) {
  // Where the person left a chat: at its end (it follows what comes) or up, reading (it stays there).
  if (!list.clientHeight) return; // a hidden tab's
  list.stick = list.scrollHeight - list.scrollTop - list.clientHeight < 60;
  list.top = list.scrollTop;
}

function renderMessages(list, chat, keep, view) {
  if (list.dataset.view !== view) { // another chat or topic: start afresh, at the bottom
    list.replaceChildren();
    list.dataset.view = view;
    delete list.dataset.shown;
    list.stick = true;
  } else {
    notePlace(list); // a scroll just made may not have had its event yet: what comes follows where she is now
  }
  const old = new Map([...list.children].map((item) => [item.dataset.id, item]));
  let previous = null;
  for (const message of chat.messages.filter(keep)) {
    let item = old.get(String(message.id));
    old.delete(String(message.id));
    if (!item || item.dataset.edits !== String(message.edits)) {
      if (list.dataset.shown && list.offsetParent === null) { // news in the other tab (on a phone): a dot on it
        $(`#tabs [data-pane="${list.parentElement.id}"]`).classList.add("unread");
      }
      item = messageItem(chat, message, list, item);
    }
    const next = previous ? previous.nextSibling : list.firstChild;
    if (next !== item) list.insertBefore(item, next);
    previous = item;
  }
  for (const gone of old.values()) gone.remove(); // deleted, or older than what the page is sent
  list.dataset.shown = "yes"; // what comes after the first showing is news
  if (list.stick) list.scrollTop = list.scrollHeight;
}

function messageItem(chat, message, list, item = el("li")) {
  // An edit changes the item shown in place: its picture stays until the new one is loaded, and its buttons
  // stay under a finger tapping again (a node taken out of the page, even for a moment, loses a tap under way).
  item.className = message.mine ? "msg mine" : "msg";
  item.dataset.id = message.id;
  item.dataset.edits = message.edits;
  const parts = [];
  if (chat.type !== "private" && !message.mine) {
    const from = el("div", "from", message.from);
    if (message.owner) from.append(el("span", "badge", TEXTS[state.me.lang].owner)); // as Telegram marks them
    parts.push(from);
  }
  if (message.reply) parts.push(el("div", "reply", message.reply.text));
  if (message.photo) parts.push(picture(message, list, item));
  if (message.text) parts.push(el("div", "text", message.text));
  if (message.keyboard.length) parts.push(keyboard(chat, message, $(".keyboard", item)));
  const time = new Date(message.date * 1000).toTimeString().slice(0, 5);
  parts.push(el("div", "meta", message.edits ? `${TEXTS[state.me.lang].edited} ${time}` : time));
  for (const child of [...item.children]) if (!parts.includes(child)) child.remove();
  parts.forEach((part, n) => { if (item.children[n] !== part) item.insertBefore(part, item.children[n] ?? null); });
  return item;
}

function picture(message, list, item) {
  // A new picture replaces the one shown once it is loaded and decoded (an edit never flashes blank); the newest
  // wanted wins, whichever loads first.
  const shown = $("img", item);
  const alt = message.text.split("\n")[0];
  const follow = () => { if (list.stick) list.scrollTop = list.scrollHeight; };
  item.dataset.photo = message.photo;
  if (shown && shown.getAttribute("src") === message.photo) return Object.assign(shown, { alt });
  const fresh = Object.assign(el("img"), { alt, width: message.size[0], height: message.size[1] });
  fresh.src = message.photo;
  if (!shown) {
    fresh.onload = follow;
    return fresh;
  }
  const swap = () => {
    const now = $("img", item);
    if (item.dataset.photo !== message.photo || !now || now === fresh || !fresh.naturalWidth) return;
    now.replaceWith(fresh);
    follow();
  };
  // decode() may give up on a busy machine before the picture has loaded: then it is swapped in once loaded, and
  // a picture that never loads leaves the old one shown (never a blank one).
  fresh.decode().then(swap, () => fresh.addEventListener("load", swap, { once: true }));
  return shown;
}

function keyboard(chat, message, shown) {
  // The keyboard shown is relabelled in place when the edit keeps its shape (a replay's, a hand's).
  const rows = message.keyboard;
  const same = shown && shown.children.length === rows.length
    && rows.every((row, n) => shown.children[n].children.length === row.length);
  const box = same ? shown : el("div", "keyboard");
  rows.forEach((row, n) => {
    const line = same ? box.children[n] : box.appendChild(el("div", "row"));
    row.forEach((button, m) => {
      const node = same ? line.children[m] : line.appendChild(el("button"));
      node.className = button.web_app ? "url web-app" : button.url ? "url" : "";
      node.textContent = button.text;
      node.type = "button";
      node.onclick = () => (button.web_app ? openWebApp(button.web_app)
        : button.url ? openLink(button.url) : press(chat, message, button, node));
    });
  });
  return box;
}

async function press(chat, message, button, node) {
  // Telegram's spinner until the bot answers; a tap meanwhile is sent too (quick taps on ▶ add up).
  node.presses = (node.presses ?? 0) + 1;
  node.classList.add("pending");
  try {
    const { answer } = await api("/api/press", { chat: chat.id, message: message.id, data: button.data });
    if (answer && answer.text) toast(answer.text, answer.alert);
  } finally {
    node.presses -= 1;
    node.classList.toggle("pending", node.presses > 0);
  }
}

async function openWebApp(url) {
  // A Mini App opens as Telegram opens it: the sandbox signs the person's initData into its address.
  const opened = window.open("", "_blank");
  const { url: launch } = await api("/api/webapp", { url });
  if (opened) opened.location = launch; else window.location = launch;
}

async function openLink(url) {
  const link = new URL(url);
  if (["t.me", "telegram.me"].includes(link.host) && link.pathname.slice(1) === state.bot.username) {
    await api("/api/link", { url }); // a deep link to the bot: its private chat opens, START pressed
    showPane("private");
  } else {
    window.open(url, "_blank", "noopener");
  }
}

async function say(pane, text) {
  const inGroup = pane === "group";
  const chat = inGroup ? groupId : state.me.id;
  await api("/api/say", { chat, text, topic: inGroup ? topicId : null });
}

function commandMenu(pane, anchor) {
  const menu = $("#commands");
  if (!menu.hidden) { menu.hidden = true; return; }
  menu.replaceChildren(...state.commands.map((command) => {
    const item = el("li");
    item.append(el("b", "", `/${command.command}`), command.description);
    item.onclick = () => { menu.hidden = true; say(pane, `/${command.command}`); };
    return item;
  }));
  const box = anchor.getBoundingClientRect();
  menu.style.left = `${box.left}px`;
  menu.hidden = false;
}

$("#welcome").addEventListener("submit", async (event) => {
  event.preventDefault();
  if (!$("#name").value.trim()) { toast(TEXTS[$("#lang").value].badName, true); return; } // in the chosen language
  const { key: made } = await api("/api/join", { name: $("#name").value, lang: $("#lang").value });
  key = made;
  sessionStorage.setItem("sandbox-key", key);
  poll();
});
function openGroup(chat) { // shown from the next state on (a group just made is in none yet)
  groupId = chat;
  topicId = null;
  showPane("group");
}
$("#play").onclick = async () => {
  const { chat, seated } = await api("/api/play", {});
  if (!seated) { openGroup(chat); return; }
  // One table a person: nothing was made; the way back to the table they sit at.
  const texts = TEXTS[state.me.lang];
  toast(texts.seated, true);
  const back = el("button", "back", texts.back);
  back.type = "button";
  back.onclick = () => { $("#toast").hidden = true; openGroup(seated); render(); };
  $("#toast").append(" ", back);
};
$("#newtopic").onclick = async () => {
  const name = prompt(TEXTS[state.me.lang].topicName);
  if (!name) return;
  const { chat, topic } = await api("/api/topic", { name });
  groupId = chat;
  topicId = topic;
};
$("#groups").onchange = (event) => { groupId = Number(event.target.value); topicId = null; render(); };
$("#topics").onchange = (event) => { topicId = event.target.value ? Number(event.target.value) : null; render(); };
for (const tab of document.querySelectorAll("#tabs button")) tab.onclick = () => showPane(tab.dataset.pane);
for (const pane of document.querySelectorAll(".pane")) {
  const list = $(".messages", pane);
  list.stick = true;
  list.top = 0;
  list.onscroll = () => notePlace(list);
  $(".menu", pane).onclick = (event) => commandMenu(pane.id, event.target);
  $(".composer", pane).addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = $("input", pane);
    if (!input.value.trim()) return;
    await say(pane.id, input.value);
    input.value = "";
  });
}
if (key) poll(); else showWelcome();
