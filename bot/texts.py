"""Every user-facing string of the bot, keyed by id, in Simplified Chinese (default) and English.

``text(key, lang, **fields)`` formats one; a missing language falls back to Chinese. Kept in one table so a
later move to Babel catalogues is mechanical.

>>> text("btn_peng", "en", tile="5m")
'Pung 5m'
>>> text("btn_peng", "zh", tile="五万")
'碰 五万'
"""

from __future__ import annotations

from typing import Final

DEFAULT_LANG: Final = "zh"

TEXTS: Final[dict[str, dict[str, str]]] = {
    # commands and the lobby
    "help": {
        "zh": "武汉麻将 · 红中赖子杠\n在群里: /newgame 开桌 · /join 入座 · /leave 离座 · /begin 开局 · "
        "/flee 逃跑(罚分) · /stop 结束牌局\n入座前请先私聊我一次 (点开始), 我才能把你的牌私发给你。",
        "en": "Wuhan Mahjong · Red-Dragon Wildcard Kong\nIn a group: /newgame open a table · /join sit down · "
        "/leave stand up · /begin deal · /flee flee (penalty) · /stop end the game\n"
        "Start a private chat with me first, so I can send you your tiles.",
    },
    "group_only": {"zh": "请在群里使用这个命令。", "en": "Use this command in a group."},
    "lobby": {
        "zh": "🀄 麻将桌 (发起人 {creator})\n{seats}\n点「入座」加入, 人齐或点「开局」发牌; 空位由电脑补上。",
        "en": "🀄 Mahjong table (opened by {creator})\n{seats}\nPress Join to sit down, then Start to deal; "
        "empty seats get automatic players.",
    },
    "lobby_no_bots": {
        "zh": "🀄 麻将桌 (发起人 {creator})\n{seats}\n四人坐满后点「开局」。",
        "en": "🀄 Mahjong table (opened by {creator})\n{seats}\nStart once all four seats are taken.",
    },
    "lobby_started": {
        "zh": "🀄 麻将桌 (发起人 {creator}) 已开局\n{seats}",
        "en": "🀄 Mahjong table (opened by {creator}): playing\n{seats}",
    },
    "seat_empty": {"zh": "(空位)", "en": "(empty)"},
    "seat_bot": {"zh": "电脑", "en": "Bot"},
    "wind_0": {"zh": "东", "en": "East"},
    "wind_1": {"zh": "南", "en": "South"},
    "wind_2": {"zh": "西", "en": "West"},
    "wind_3": {"zh": "北", "en": "North"},
    "table_exists": {"zh": "这个群已经有一张桌了。", "en": "This group already has a table."},
    "no_table": {"zh": "还没有开桌, 请先 /newgame。", "en": "No table yet: /newgame opens one."},
    "joined": {"zh": "{name} 入座 ({wind})。", "en": "{name} sat down ({wind})."},
    "joined_private": {
        "zh": "你已入座「{group}」, 等待开局。你的牌会发在这里。",
        "en": "You are seated at “{group}”; waiting for the deal. Your tiles will appear here.",
    },
    "already_seated": {"zh": "你已经入座了。", "en": "You are already seated."},
    "table_full": {"zh": "座位已满。", "en": "The table is full."},
    "not_reachable": {
        "zh": "{name}, 我还不能私聊你: 请点下面的按钮, 在私聊里点「开始」, 就会自动入座。",
        "en": "{name}, I cannot message you privately yet: press the button below and then Start; "
        "you will be seated automatically.",
    },
    "left": {"zh": "{name} 离座。", "en": "{name} left the table."},
    "not_seated": {"zh": "你不在这张桌上。", "en": "You are not seated at this table."},
    "hand_running": {
        "zh": "牌局进行中: 要离开请用 /flee (罚 {penalty} 分)。",
        "en": "A hand is being played: /flee leaves it (penalty {penalty} points).",
    },
    "already_playing": {"zh": "已经开局了。", "en": "The game has already started."},
    "need_players": {
        "zh": "这个群不允许电脑补位, 需要四个人。",
        "en": "This group does not allow automatic players: four people are needed.",
    },
    "need_human": {"zh": "至少要有一个人入座。", "en": "At least one person must be seated."},
    "start_hello": {
        "zh": "你好! 我在群里主持武汉麻将。把我加进群, 用 /newgame 开桌。",
        "en": "Hello! I host Wuhan Mahjong in groups. Add me to a group and open a table with /newgame.",
    },
    "start_no_table": {"zh": "那个群现在没有开着的桌。", "en": "That group has no open table now."},
    "btn_join": {"zh": "入座", "en": "Join"},
    "btn_join_private": {"zh": "私聊我并入座", "en": "Open private chat and join"},
    "btn_start": {"zh": "开局", "en": "Start"},
    "btn_ready": {"zh": "准备好了", "en": "Ready"},
    "btn_back": {"zh": "我回来了", "en": "I'm back"},
    # action buttons
    "btn_hu": {"zh": "胡", "en": "Win"},
    "btn_hongzhong_gang": {"zh": "红中杠", "en": "Red-dragon kong"},
    "btn_laizi_gang": {"zh": "赖子杠", "en": "Wildcard kong"},
    "btn_an_gang": {"zh": "暗杠 {tile}", "en": "Concealed kong {tile}"},
    "btn_xu_gang": {"zh": "蓄杠 {tile}", "en": "Added kong {tile}"},
    "btn_chong_gang": {"zh": "杠 {tile}", "en": "Kong {tile}"},
    "btn_peng": {"zh": "碰 {tile}", "en": "Pung {tile}"},
    "btn_chi": {"zh": "吃 {tiles}", "en": "Chow {tiles}"},
    "btn_pass": {"zh": "过", "en": "Pass"},
    # captions
    "caption_seat": {
        "zh": "{group} · 你是{wind}家{dealer} · 赖子 {laizi} · 余 {wall} 张",
        "en": "{group} · you are {wind}{dealer} · wildcard {laizi} · {wall} left",
    },
    "dealer_mark": {"zh": " (庄)", "en": " (dealer)"},
    "your_turn": {"zh": "轮到你出牌 ({seconds} 秒)。", "en": "Your turn: discard ({seconds} s)."},
    "your_claim": {
        "zh": "{seat} 打出 {tile}: 要吗? ({seconds} 秒)",
        "en": "{seat} discarded {tile}: claim it? ({seconds} s)",
    },
    "your_rob": {
        "zh": "{seat} 蓄杠 {tile}: 可以抢杠胡! ({seconds} 秒)",
        "en": "{seat} adds a kong of {tile}: rob it? ({seconds} s)",
    },
    "your_haidi": {"zh": "海底: 可以胡! ({seconds} 秒)", "en": "Last tiles: you can win! ({seconds} s)"},
    "waiting_for": {"zh": "等待 {seat}。", "en": "Waiting for {seat}."},
    "tuoguan_on": {
        "zh": "你超时了, 现在由电脑托管。点「我回来了」继续自己打。",
        "en": "You ran out of time; the automatic player now plays for you (托管). Press “I'm back” to play again.",
    },
    "tuoguan_mark": {"zh": "托管", "en": "auto"},
    "back_ok": {"zh": "欢迎回来!", "en": "Welcome back!"},
    "spectator_caption": {
        "zh": "第 {number} 局 · 庄 {dealer} · 赖子 {laizi} · 余 {wall} 张 · 等待 {waiting}",
        "en": "Hand {number} · dealer {dealer} · wildcard {laizi} · {wall} left · waiting for {waiting}",
    },
    "announce_peng": {"zh": "{seat} 碰 {tile}", "en": "{seat}: Pung {tile}"},
    "announce_chi": {"zh": "{seat} 吃 {tile}", "en": "{seat}: Chow {tile}"},
    "announce_gang": {"zh": "{seat} 杠 {tile}", "en": "{seat}: Kong {tile}"},
    "announce_hongzhong_gang": {"zh": "{seat} 红中杠", "en": "{seat}: red-dragon kong"},
    "announce_laizi_gang": {"zh": "{seat} 赖子杠", "en": "{seat}: wildcard kong"},
    "announce_win": {"zh": "🀄 {seat} 胡了! {patterns}", "en": "🀄 {seat} wins! {patterns}"},
    "announce_exhausted": {"zh": "荒庄: 这局流局, 不计分。", "en": "Exhaustive draw (荒庄): no payments."},
    "announce_tuoguan": {"zh": "{seat} 超时, 电脑托管。", "en": "{seat} timed out; auto-play."},
    "announce_flee": {
        "zh": "{seat} 逃跑了 (罚 {penalty} 分), 电脑接替。",
        "en": "{seat} fled (penalty {penalty}); a bot takes the seat.",
    },
    "result_caption": {"zh": "第 {number} 局结果\n{lines}", "en": "Result of hand {number}\n{lines}"},
    "next_hand": {
        "zh": "点「准备好了」开始下一局 ({seconds} 秒后自动开始)。",
        "en": "Press Ready for the next hand (it starts in {seconds} s anyway).",
    },
    "result_line": {"zh": "{seat}: {delta:+d} (总 {total:+d})", "en": "{seat}: {delta:+d} (total {total:+d})"},
    "stopped": {"zh": "牌局结束。总分:\n{lines}", "en": "Game over. Totals:\n{lines}"},
    "stop_denied": {
        "zh": "只有开桌的人或群管理员可以结束牌局。",
        "en": "Only the table's creator or a group admin can stop it.",
    },
    "title_changed": {"zh": "{seat} 的头衔变为「{title}」。", "en": "{seat} is now “{title}”."},
    "closed": {"zh": "这张桌已关闭。", "en": "This table is closed."},
    "resumed": {"zh": "机器人重启了, 牌局继续。", "en": "The bot restarted; the hand goes on."},
    # press notices (answerCallbackQuery)
    "press_foreign": {"zh": "这不是你的按钮。", "en": "These buttons are not yours."},
    "press_stale": {"zh": "这个按钮已经过期了。", "en": "That button is out of date."},
    "press_ok": {"zh": "好", "en": "OK"},
    "press_illegal": {"zh": "现在不能这样做。", "en": "You cannot do that now."},
}


def text(key: str, lang: str = DEFAULT_LANG, **fields: object) -> str:
    entry = TEXTS[key]
    template = entry.get(lang) or entry[DEFAULT_LANG]
    return template.format(**fields) if fields else template
