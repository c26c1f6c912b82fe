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
    "resumed_between": {
        "zh": "机器人重启了, 牌局继续: 下一局 {seconds} 秒后开始 (或大家点「准备好了」)。",
        "en": "The bot restarted; the game goes on: the next hand starts in {seconds} s (or when all press Ready).",
    },
    "resumed": {"zh": "机器人重启了, 牌局继续。", "en": "The bot restarted; the hand goes on."},
    # press notices (answerCallbackQuery)
    "press_foreign": {"zh": "这不是你的按钮。", "en": "These buttons are not yours."},
    "press_stale": {"zh": "这个按钮已经过期了。", "en": "That button is out of date."},
    "press_ok": {"zh": "好", "en": "OK"},
    "press_illegal": {"zh": "现在不能这样做。", "en": "You cannot do that now."},
    # league nights (bot.league_handlers)
    "sitting_out": {"zh": "联赛轮换: 这一局你轮空, 稍后再上桌。", "en": "League rotation: you sit out this hand."},
    "league_usage": {
        "zh": "联赛 (群管理员):\n"
        "/league create 名称 | fri 20:00 | Asia/Shanghai | 8 hands | kaikoufan [选项=值 …] [bots=off]\n"
        "  星期: mon … sun, 可写 mon,wed 或 mon-fri; 时长: N hands (局) 或 N minutes (分钟);\n"
        "  规则: kaikoufan 或 koukoufan, 可加 cap=500 等选项; bots=off: 不足四人时取消而不用电脑补位。\n"
        "/league pause · /league resume · /league end (结束本赛季) · /league close (解散联赛)\n"
        "/league set name|schedule|zone|length|rules|bots 值 (例: /league set schedule sat 19:30)\n"
        "所有人: /league table 赛季积分榜 · /league next 下一场",
        "en": "Leagues (group admins):\n"
        "/league create Name | fri 20:00 | Asia/Shanghai | 8 hands | kaikoufan [option=value …] [bots=off]\n"
        "  days: mon … sun, also mon,wed or mon-fri; length: N hands or N minutes;\n"
        "  rules: kaikoufan or koukoufan, plus options such as cap=500; bots=off: call a night off "
        "instead of filling empty seats with automatic players.\n"
        "/league pause · /league resume · /league end (end the season) · /league close (end the league)\n"
        "/league set name|schedule|zone|length|rules|bots <value> (e.g. /league set schedule sat 19:30)\n"
        "Everyone: /league table season standings · /league next the next night",
    },
    "league_syntax": {"zh": "格式不对: {error}\n\n{usage}", "en": "Cannot read that: {error}\n\n{usage}"},
    "league_refused": {"zh": "没有改动: {error}", "en": "Nothing changed: {error}"},
    "league_admin_only": {"zh": "只有群管理员可以管理联赛。", "en": "Only group admins can manage the league."},
    "league_none": {
        "zh": "这个群还没有联赛。管理员可以用 /league create 创建, /league help 看格式。",
        "en": "This group has no league yet. An admin can create one with /league create (/league help).",
    },
    "league_exists": {"zh": "这个群已经有联赛「{name}」了。", "en": "This group already has the league “{name}”."},
    "league_weekdays": {"zh": "周一 周二 周三 周四 周五 周六 周日", "en": "Mon Tue Wed Thu Fri Sat Sun"},
    "league_hands": {"zh": "{n} 局", "en": "{n} hands"},
    "league_minutes": {"zh": "{n} 分钟", "en": "{n} minutes"},
    "league_bots_on": {"zh": "人不够时电脑补位", "en": "automatic players fill empty seats"},
    "league_bots_off": {"zh": "不足四人则取消", "en": "called off with fewer than four"},
    "league_summary": {
        "zh": "联赛「{name}」第 {season} 赛季{state}\n每{days} {time} ({zone}) · 每场 {length} · {rules} · {bots}",
        "en": "League “{name}”, season {season}{state}\nEvery {days} at {time} ({zone}) · {length} a night · "
        "{rules} · {bots}",
    },
    "league_state_paused": {"zh": " (暂停中)", "en": " (paused)"},
    "league_created": {"zh": "已创建。\n{summary}\n第一场: {when}", "en": "Created.\n{summary}\nFirst night: {when}"},
    "league_updated": {"zh": "已更新。\n{summary}\n下一场: {when}", "en": "Updated.\n{summary}\nNext night: {when}"},
    "league_paused": {
        "zh": "联赛「{name}」已暂停: 恢复前到点的场次会取消。/league resume 恢复。",
        "en": "League “{name}” paused: nights falling due before /league resume are called off.",
    },
    "league_not_active": {"zh": "联赛「{name}」现在没有在进行。", "en": "League “{name}” is not running now."},
    "league_not_paused": {"zh": "联赛「{name}」没有暂停。", "en": "League “{name}” is not paused."},
    "league_resumed": {"zh": "联赛「{name}」恢复。下一场: {when}", "en": "League “{name}” resumed. Next night: {when}"},
    "league_season_over": {
        "zh": "联赛「{name}」第 {season} 赛季结束! 最终积分榜见上图。第 {next} 赛季开始。",
        "en": "League “{name}”: season {season} is over (final table above). Season {next} begins.",
    },
    "league_closed": {
        "zh": "联赛「{name}」已解散, 之后的场次取消。积分仍然保留。",
        "en": "League “{name}” has ended; its coming nights are called off. Its standings are kept.",
    },
    "league_next": {
        "zh": "{summary}\n下一场: {when}\n已报名 ({count}): {names}",
        "en": "{summary}\nNext night: {when}\nSigned up ({count}): {names}",
    },
    "league_no_next": {"zh": "{summary}\n暂无安排的场次。", "en": "{summary}\nNo night is scheduled."},
    "league_nobody": {"zh": "(还没有人)", "en": "(nobody yet)"},
    "league_announce": {
        "zh": "🀄 联赛「{name}」: {when} 开打!\n已报名 ({count}): {names}\n要来的点「我来」。",
        "en": "🀄 League “{name}”: next night {when}!\nSigned up ({count}): {names}\nPress “I'm in” to play.",
    },
    "league_remind": {
        "zh": "⏰ 联赛「{name}」一小时后开始 ({when})。\n已报名 ({count}): {names}",
        "en": "⏰ League “{name}” starts in an hour ({when}).\nSigned up ({count}): {names}",
    },
    "btn_league_in": {"zh": "我来", "en": "I'm in"},
    "btn_league_out": {"zh": "这次不来", "en": "Not this time"},
    "league_in_ok": {"zh": "已报名。", "en": "You are in."},
    "league_out_ok": {"zh": "已取消报名。", "en": "You are out this time."},
    "league_signups_closed": {"zh": "这一场已经不能报名了。", "en": "Sign-ups for this night are closed."},
    "league_need_private": {
        "zh": "请先私聊我并点「开始」, 再来报名 (我要私发你的牌)。",
        "en": "Start a private chat with me first (press Start), then sign up: I send your tiles privately.",
    },
    "league_signed_private": {
        "zh": "你已报名联赛「{name}」({when})。开局后你的牌会发在这里。",
        "en": "You are signed up for “{name}” ({when}). Your tiles will appear here once it starts.",
    },
    "league_start": {
        "zh": "🀄 联赛「{name}」开始! 今晚: {names}{extra}",
        "en": "🀄 League “{name}” starts now! Tonight: {names}{extra}",
    },
    "league_rotation": {
        "zh": "\n{count} 人轮流上桌, 每局四人, 每人局数相差不超过一局。",
        "en": "\n{count} players take turns, four a hand; everyone plays within one hand of the others.",
    },
    "league_filled": {"zh": "\n{count} 个空位由电脑补上。", "en": "\n{count} empty seat(s) get automatic players."},
    "league_called_off": {
        "zh": "联赛「{name}」({when}) 取消: 只有 {count} 人报名 ({names}), 需要四人。下一场: {next}",
        "en": "League “{name}” ({when}) is called off: {count} signed up ({names}), four are needed. "
        "Next night: {next}",
    },
    "league_missed": {
        "zh": "联赛「{name}」({when}) 因机器人离线错过, 取消。下一场: {next}",
        "en": "League “{name}” ({when}) was missed while the bot was offline and is called off. Next night: {next}",
    },
    "league_busy": {
        "zh": "联赛「{name}」({when}) 取消: 群里已有一桌在打。下一场: {next}",
        "en": "League “{name}” ({when}) is called off: a table is already playing in this group. Next night: {next}",
    },
    "league_paused_off": {
        "zh": "联赛「{name}」暂停中, {when} 的场次取消。",
        "en": "League “{name}” is paused: the night of {when} is called off.",
    },
    "league_none_next": {"zh": "(暂停中)", "en": "(paused)"},
    "league_night_results": {"zh": "联赛「{name}」{when} 战绩", "en": "League “{name}”: results of {when}"},
    "league_season_table": {
        "zh": "联赛「{name}」第 {season} 赛季积分榜",
        "en": "League “{name}”: season {season} standings",
    },
}


def text(key: str, lang: str = DEFAULT_LANG, **fields: object) -> str:
    entry = TEXTS[key]
    template = entry.get(lang) or entry[DEFAULT_LANG]
    return template.format(**fields) if fields else template
