"""What the Botzone importers share (:mod:`.botzone` for FightTheLandlord, :mod:`.botzone_guandan`):
a log entry's judge output and a bot's answer."""

from __future__ import annotations

from .foreign import FormatError

#: the bots' answer fields kept on each action
KEPT = ("time", "memory", "verdict")


def _output(entry: object) -> dict:
    """The judge's output of a log entry (``{"output": ...}`` or the output itself)."""
    if isinstance(entry, dict):
        out = entry.get("output", entry)
        if isinstance(out, dict):
            return out
    return {}


def _answer(log: list, k: int, seat: int) -> tuple[dict, object]:
    """The bot's answer at log[k] for *seat*: (its fields, its response)."""
    entry = log[k] if k < len(log) else None
    answer = entry.get(str(seat)) if isinstance(entry, dict) else None
    if not isinstance(answer, dict):
        raise FormatError(f"log[{k}]", f'the answer of seat {seat}, {{"{seat}": {{"response": ..., "verdict": "OK"}}}}')
    if answer.get("verdict", "OK") != "OK":
        raise FormatError(f"log[{k}].{seat}.verdict", f"OK (a bot that failed made no move), got {answer['verdict']!r}")
    return answer, answer.get("response")
