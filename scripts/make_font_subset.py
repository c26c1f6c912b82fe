"""Make rendering/fonts/: the bundled font subset the pictures draw every glyph from.

Run once, by hand, when a label or a tile face needs a new character (never at run time):

    apt-get install -y fonts-noto-cjk        # Debian's Noto CJK, SIL Open Font License 1.1
    .venv/bin/python scripts/make_font_subset.py [path/to/NotoSansCJK-Bold.ttc]

It keeps the Simplified Chinese bold face of the collection, cut down to exactly the characters the
pictures use: every label of rendering.labels (which already holds the pattern names, titles, tiles and
winds), the docs/RULES.md §13 glossary terms, the traditional tile glyphs (萬 東 發 ...), printable ASCII and
Latin-1 for player names and English labels. It writes the font, ``charset.txt`` (the characters it covers,
which rendering.fonts reads to replace anything else with '?') and the OFL licence text.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from fontTools import subset  # type: ignore[import-untyped]
from fontTools.ttLib import TTCollection  # type: ignore[import-untyped]

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rendering.fonts import CHARSET_PATH, FONT_PATH, TILE_GLYPHS  # noqa: E402
from rendering.labels import all_label_text  # noqa: E402

DEFAULT_SOURCE = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc")
DEBIAN_COPYRIGHT = Path("/usr/share/doc/fonts-noto-cjk/copyright")
RULES_PATH = ROOT / "docs" / "RULES.md"
SC_NAME = "Noto Sans CJK SC Bold"
# Player names are free text: the most common surnames and given-name characters, so most Chinese names
# show in full (anything else falls back to '?').
NAME_CHARS = (
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚"
    "卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤常温"
    "康施文牛樊葛邢安齐易乔伍庞颜倪庄聂章鲁岳翟殷詹申欧耿关兰焦俞左柳甘祝包宁尚符舒阮柯纪梅童凌毕单季裴霍涂"
    "成苗谷盛曲翁冉骆蓝路游辛靳管柴蒙鲍华喻祁蒲房滕屈饶解牟艾尤阳时穆农司卓古吉缪简车项连芦麦褚娄窦戚岑景党"
    "宫费卜冷晏席卫米柏宗瞿桂全佟应臧闵苟邬边卞姬师和仇栾隋商刁沙荣巫寇桑郎甄丛仲虞敖巩明佘池查麻苑迟邝"
    "伟芳娜秀英敏静丽强磊军洋勇艳杰娟涛超秀霞平刚桂兰明辉玲华红飞鹏斌宇浩凯健俊帆帅旭宁峰建波云龙晨欣怡佳"
    "婷雪梦琳慧颖婧瑶涵萱轩泽睿博文杰豪哲诚志国荣家庆海鑫晓红梅丹春燕晶莉萍倩玉凤亮林坤雨思嘉乐安宏宝东"
    "德天子新晓阳光永鸿彬鹤雯琪璐蕾薇露月星辰小大老阿"
    # and group titles: 麻将群, 周五晚局 ...
    "群友会馆社团队俱乐部周末晚局麻雀牌桌日"
)
# Punctuation the labels and names commonly use, ASCII and Latin-1 besides.
EXTRA = "·—–…×←→↑↓✓、，。：；！？（）《》「」【】“”‘’¥€"


def glossary_text() -> str:
    """The Chinese column of the docs/RULES.md §13 glossary."""
    section = RULES_PATH.read_text(encoding="utf-8").split("## 13.", 1)[-1]
    return "".join(re.findall(r"^\| ([^|]+) \|", section, flags=re.M))


def wanted_characters() -> str:
    chars = set(all_label_text() + glossary_text() + TILE_GLYPHS + NAME_CHARS + EXTRA)
    chars |= {chr(c) for c in range(0x20, 0x7F)} | {chr(c) for c in range(0xA1, 0x100)}
    return "".join(sorted(c for c in chars if c.isprintable()))


def ofl_text() -> str:
    """The licence paragraph of Debian's copyright file, unindented, with the fonts' copyright line."""
    lines = DEBIAN_COPYRIGHT.read_text(encoding="utf-8").split("License: SIL-1.1\n", 2)[2].splitlines()
    body: list[str] = []
    for line in lines:
        if not line.startswith(" "):
            break
        body.append("" if line.strip() == "." else line[1:])
    header = "Copyright © 2014-2021 Adobe (http://www.adobe.com/), with Reserved Font Name 'Source'.\n"
    header += "Noto Sans CJK SC Bold, subset by scripts/make_font_subset.py for this project.\n\n"
    return header + "\n".join(body).strip() + "\n"


def main() -> None:
    source = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_SOURCE
    fonts = [f for f in TTCollection(str(source)).fonts if f["name"].getDebugName(4) == SC_NAME]
    if not fonts:
        raise SystemExit(f"{SC_NAME} is not in {source}")
    font = fonts[0]
    chars = wanted_characters()
    options = subset.Options()
    options.layout_features = ["kern", "locl"]
    options.hinting = False
    options.desubroutinize = False
    options.notdef_outline = True
    options.name_IDs = ["*"]
    subsetter = subset.Subsetter(options)
    subsetter.populate(text=chars)
    subsetter.subset(font)
    FONT_PATH.parent.mkdir(parents=True, exist_ok=True)
    font.save(str(FONT_PATH))
    covered = {chr(c) for c in font.getBestCmap()}
    CHARSET_PATH.write_text("".join(sorted(covered)), encoding="utf-8")
    (FONT_PATH.parent / "OFL.txt").write_text(ofl_text(), encoding="utf-8")
    missing = set(chars) - covered
    print(f"{FONT_PATH.name}: {FONT_PATH.stat().st_size // 1024} KB, {len(covered)} characters"
          + (f"; not in the font: {''.join(sorted(missing))}" if missing else ""))


if __name__ == "__main__":
    main()
