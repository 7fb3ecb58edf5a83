"""Rule settings for what-if runs: ``--rule NAME=VALUE``, ``--rules FILE.toml`` and the
settings of ``--compare``, turned into a record's ``params`` (JSON values that
:meth:`replay.rules.Rules.with_params` reads back).

>>> from paipu.replay.games import find_rules
>>> ddz = find_rules("ddz")
>>> changes(ddz, ["straight-min=6", "kinds-=four_two_single,four_two_pair"])["straight_min"]
6
>>> sorted(set(ddz.kinds) - set(changes(ddz, ["kinds-=four_two_single"])["kinds"]))
['four_two_single']
>>> changes(ddz, ["colour=red"])
Traceback (most recent call last):
...
paipu.replay.sim.settings.SettingError: --rule colour=red: no rule 'colour' in doudizhu/huopin (known: players, deck, bottom, kinds, max_play, straight_min, pair_chain_min, triple_chain_min, peek_limit, escape_threshold, escape_landlord, escape_farmer, kicker_rocket, wing_next_to_chain, wing_four, airplane_highest_triple, bomb_on_rocket)
"""

from __future__ import annotations

import re
import tomllib
from typing import Any

from ..rules import Rules

#: ``NAME=VALUE``, ``NAME+=A,B`` (add to a set), ``NAME-=A,B`` (take out of a set)
CHANGE = re.compile(r"^\s*([A-Za-z](?:[\w-]*\w)?)\s*([+-]?=)\s*(.*?)\s*$")
TRUE, FALSE = ("true", "yes", "on", "1"), ("false", "no", "off", "0")


class SettingError(ValueError):
    """A rule change that names no rule or gives a value the rule cannot take (one line)."""


def changes(rules: Rules, texts: list[str], params: dict[str, Any] | None = None, where: str = "--rule") -> dict[str, Any]:
    """*params* (default none) with the changes ``NAME=VALUE`` of *texts* applied, checked
    against *rules*; SettingError names the change, the rule and what was expected."""
    params = dict(params or {})
    for text in texts:
        m = CHANGE.match(text)
        if not m:
            raise SettingError(f"{where} {text}: expected NAME=VALUE, NAME+=A,B or NAME-=A,B "
                               f"(rules: {', '.join(rules.param_names())})")
        name, op, raw = m.group(1).replace("-", "_"), m.group(2), m.group(3)
        params[name] = json_value(rules, name, op, raw, params, f"{where} {text}")
        check(rules, {name: params[name]}, f"{where} {text}")
    check(rules, params, where)
    return params


def json_value(rules: Rules, name: str, op: str, raw: Any, params: dict[str, Any], where: str) -> Any:
    """The JSON value of rule *name* after ``op`` (=, +=, -=) with *raw* (text or TOML)."""
    if name not in rules.param_names():
        raise SettingError(f"{where}: no rule {name!r} in {rules.game}/{rules.variant} "
                           f"(known: {', '.join(rules.param_names())})")
    default = getattr(rules, name)
    if name == "deck":
        default = len(default)
    if isinstance(default, frozenset):
        items = [x.strip() for x in raw.split(",") if x.strip()] if isinstance(raw, str) else raw
        if not isinstance(items, list):
            raise SettingError(f"{where}: expected names separated by commas")
        current = set(params.get(name, sorted(default)))
        value = set(items) if op == "=" else (current | set(items) if op == "+=" else current - set(items))
        if op == "-=":
            missing = [x for x in items if x not in current]
            if missing:
                raise SettingError(f"{where}: {missing[0]!r} is not in {name} (has: {', '.join(sorted(current))})")
        return sorted(value)
    if op != "=":
        raise SettingError(f"{where}: {name} is not a set of names; use {name}=VALUE")
    if not isinstance(raw, str):
        return raw  # TOML gives typed values; with_params checks them
    if isinstance(default, bool):
        if raw.lower() not in TRUE + FALSE:
            raise SettingError(f"{where}: {name} expects true or false")
        return raw.lower() in TRUE
    if isinstance(default, int):
        if name.endswith("_card") and not re.fullmatch(r"-?\d+", raw):
            return raw
        try:
            return int(raw)
        except ValueError:
            raise SettingError(f"{where}: {name} expects an integer (now {default})") from None
    if isinstance(default, tuple):
        try:
            return [int(x) for x in raw.split(",")]
        except ValueError:
            raise SettingError(f"{where}: {name} expects {len(default)} integers separated by commas "
                               f"(now {','.join(map(str, default))})") from None
    return raw


def check(rules: Rules, params: dict[str, Any], where: str) -> Rules:
    """The rules with *params*, or SettingError (the value's problem, one line)."""
    try:
        return rules.with_params(params)
    except (ValueError, TypeError) as e:
        raise SettingError(f"{where}: {str(e).removeprefix('params.')}") from None


#: the largest TOML file of rule changes read (a rule change is a line)
MAX_RULES_BYTES = 1 << 20


def load_toml(rules: Rules, path: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    """The rule changes of a TOML file: ``name = value`` per rule; a key ending in ``+`` or
    ``-`` adds to or takes out of a set (``kinds- = ["four_two_single"]``)."""
    from ..io.sources import InputError, read_small

    try:
        raw = read_small(path, MAX_RULES_BYTES, "--rules")
        data = tomllib.loads(raw.decode("utf-8"))
    except InputError as e:
        raise SettingError(str(e).removeprefix("--rules ")) from None
    except UnicodeDecodeError as e:
        raise SettingError(f"{path}: not TOML: not UTF-8 text ({e.reason} at byte {e.start})") from None
    except tomllib.TOMLDecodeError as e:
        raise SettingError(f"{path}: not TOML: {e}") from None
    text = raw.decode("utf-8", "replace").splitlines()
    params = dict(params or {})
    for key, value in data.items():
        line = next((k + 1 for k, s in enumerate(text) if re.match(rf"\s*\"?{re.escape(key)}\"?\s*=", s)), None)
        where = f"{path}:{line}" if line else path
        op = {"+": "+=", "-": "-="}.get(key[-1:], "=")
        name = key.rstrip("+-").replace("-", "_")
        if isinstance(value, dict):
            raise SettingError(f"{where}: [{key}] is a table, not a rule; write name = value")
        params[name] = json_value(rules, name, op, value, params, where)
        check(rules, {name: params[name]}, where)
    check(rules, params, path)
    return params


def setting(rules: Rules, spec: str, base: dict[str, Any] | None = None) -> dict[str, Any]:
    """One setting of ``--compare``: ``base`` (the variant's rules, with *base* changes), a
    TOML file, or rule changes separated by ``;`` or spaces (``"kinds-=four_two_single straight_min=6"``)."""
    spec = spec.strip()
    if spec in ("base", "", "default"):
        return dict(base or {})
    if spec.endswith(".toml"):
        return load_toml(rules, spec, base)
    parts = [p for p in re.split(r"\s*;\s*|\s+(?=[A-Za-z](?:[\w-]*\w)?\s*[+-]?=)", spec) if p]
    return changes(rules, parts, base, where="--compare")


def settings_of(game: str, variant: str | None, rule: list[str], rules_file: str | None,
                compare: list[str] | None) -> list[dict[str, Any]]:
    """The params of each setting a run plays: one (the ``--rule``/``--rules`` changes) or,
    with *compare*, each compared setting on top of them. SettingError when a setting is
    unknown, repeats another, or cannot be played (a trial hand fails)."""
    from ..games import find_rules

    rules = find_rules(game, variant)
    base: dict[str, Any] = {}
    if rules_file:
        base = load_toml(rules, rules_file, base)
    if rule:
        base = changes(rules, rule, base)
    specs = compare if compare else ["base"]
    out: list[dict[str, Any]] = []
    for spec in specs:
        params = setting(rules, spec, base)
        if params in out:
            raise SettingError(f"--compare {spec}: the same setting as {specs[out.index(params)]!r}")
        out.append(params)
    return out


def trial(game: str, variant: str | None, params: dict[str, Any], label: str) -> None:
    """Play one hand under *params*: a setting the engine or the bot cannot play is a
    SettingError naming it, before any file is written."""
    from . import simulate

    try:
        for _ in simulate(game, variant, 1, 0, params=params or None):
            pass
    except SettingError:
        raise
    except AssertionError as e:  # the recorder caught an illegal simulated action
        v = e.args[0][0] if e.args and isinstance(e.args[0], tuple) and e.args[0] else e.args[0] if e.args else e
        raise SettingError(f"{label}: this setting cannot be played: {getattr(v, 'message', v)}") from None
    except Exception as e:  # noqa: BLE001 - any failure means the setting cannot be simulated
        raise SettingError(f"{label}: this setting cannot be played ({type(e).__name__}: {e})") from None
