"""Deals anyone can verify: a commitment to each hand's seed, shown at the deal, opened when the hand ends.

    python -m game.verify 5210947313408311296:9f86d081884c7d659a2feaa0c55ad015 <commitment> [--dealer 0]

Each hand has its own seed (``fresh_seed``, from ``secrets``) and a salt (``fresh_salt``). At the deal the
group sees ``commitment(seed, salt)``: SHA-256 of the reveal text ``"<seed>:<salt>"``. When the hand ends the
reveal text is shown; anyone recomputes the hash and, since the shuffle is a pure function of the seed
(``game.wall``), the whole wall and deal. The salt keeps a 63-bit seed from being found by trying seeds
against the commitment; a hand seed drawn on its own tells nothing about any other hand.

>>> reveal = reveal_text(7, "00" * 16)
>>> matches(reveal, commitment(7, "00" * 16)), matches(reveal, commitment(8, "00" * 16))
(True, False)
>>> deal_lines(7, 0)[1]
'seat 0 (dealer, 14 tiles): 155799m46p1577s37z'
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import re
import secrets
import sys
from collections.abc import Sequence
from typing import Final

from game.tiles import format_tiles, laizi_of, tile_label, tile_name
from game.wall import deal, shuffled

SEED_BITS: Final = 63  # SQLite stores up to 2^63 − 1
SALT_BYTES: Final = 16
# A settled hand's share code (what /replay, /verify and /review take): unambiguous characters (no 0/O, 1/I),
# 32^6 ≈ 10^9 codes.
SHARE_ALPHABET: Final = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"
SHARE_CODE_LEN: Final = 6
_REVEAL: Final = re.compile(r"^(\d{1,19}):([0-9a-f]{32})$")
_COMMITMENT: Final = re.compile(r"^[0-9a-f]{64}$")


class VerifyError(ValueError):
    """A reveal text or commitment that is not well formed."""


def fresh_seed() -> int:
    """A hand seed from the operating system's secure random source (never the clock)."""
    return secrets.randbits(SEED_BITS)


def fresh_salt() -> str:
    """The salt hashed with a seed: 32 lower-case hex digits."""
    return secrets.token_hex(SALT_BYTES)


def reveal_text(seed: int, salt: str) -> str:
    """What is shown when the hand ends, and what the commitment hashes."""
    return f"{seed}:{salt}"


def commitment(seed: int, salt: str) -> str:
    """SHA-256 of the reveal text, 64 hex digits: shown at the deal."""
    return hashlib.sha256(reveal_text(seed, salt).encode()).hexdigest()


def parse_reveal(text: str) -> tuple[int, str]:
    """(seed, salt) of a reveal text ``"<seed>:<salt>"``; VerifyError when it is not one."""
    found = _REVEAL.match(text.strip().lower())
    if found is None or int(found.group(1)) >= 2**SEED_BITS:
        raise VerifyError(f"a reveal is '<seed>:<salt>' (a seed below 2^63, 32 hex digits), not {text!r}")
    return int(found.group(1)), found.group(2)


def matches(reveal: str, expected: str) -> bool:
    """Whether ``reveal`` hashes to the commitment ``expected`` (VerifyError if either is malformed)."""
    seed, salt = parse_reveal(reveal)
    wanted = expected.strip().lower()
    if _COMMITMENT.match(wanted) is None:
        raise VerifyError(f"a commitment is 64 hex digits, not {expected!r}")
    return hmac.compare_digest(commitment(seed, salt), wanted)


def deal_lines(seed: int, dealer: int) -> list[str]:
    """The deal of ``seed`` in words: the 赖子皮 and 赖子, each seat's tiles, the wall head first."""
    dealt = deal(seed, dealer)
    laizi = laizi_of(dealt.indicator)
    lines = [
        f"赖子皮 indicator {tile_name(dealt.indicator)} ({tile_label(dealt.indicator, 'zh')}) · "
        f"赖子 wild {tile_name(laizi)} ({tile_label(laizi, 'zh')})"
    ]
    for seat, tiles in enumerate(dealt.hands):
        role = "dealer, " if seat == dealer else ""
        lines.append(f"seat {seat} ({role}{len(tiles)} tiles): {format_tiles(tiles)}")
    wall = dealt.wall.tiles_left()
    lines.append(f"wall ({len(wall)} drawable, head first; replacement draws come from the end):")
    lines.append(" ".join(tile_name(t) for t in wall))
    lines.append("shuffle (all 136, in dealing order):")
    lines.append(" ".join(tile_name(t) for t in shuffled(seed)))
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """0: the commitment matches (the deal is printed); 1: it does not; 2: bad input."""
    parser = argparse.ArgumentParser(
        prog="python -m game.verify", description="Check a hand's revealed seed against its commitment."
    )
    parser.add_argument("reveal", help="the reveal shown after the hand, '<seed>:<salt>'")
    parser.add_argument("commitment", help="the SHA-256 commitment shown at the deal (64 hex digits)")
    parser.add_argument("--dealer", type=int, choices=range(4), default=0, help="the dealer's seat (default 0)")
    args = parser.parse_args(argv)
    try:
        ok = matches(args.reveal, args.commitment)
    except VerifyError as exc:
        parser.error(str(exc))  # exits 2 with the usage and the message
    if not ok:
        print(f"NOT MATCHING: sha256({args.reveal.strip()!r}) is not {args.commitment.strip()}")
        return 1
    seed, salt = parse_reveal(args.reveal)
    print(f"commitment matches: sha256({reveal_text(seed, salt)!r}) = {commitment(seed, salt)}")
    print("\n".join(deal_lines(seed, args.dealer)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
