"""``paipu fraud``'s text output: each suspect and its evidence in words for people
(rates in per cent, counts with separators, tiny p- and q-values as ``< 0.0001``, never
scientific notation). The JSON and the ``suspects`` table keep the raw values.

>>> t = Test("co_seating", "toy", "plain", "A", "B", 3.2e-9, 4.0, 120,
...          {"sittings_together": 40, "expected": 10.0, "sittings_a": 120, "sittings_b": 95}, q=4.9e-7)
>>> print("\\n".join(suspect_lines(1, t, 0.01)))
  1 FLAG co_seating toy/plain A & B  q < 0.0001  p < 0.0001  effect 4  n 120
      sat together 40 times where 10 were expected (of 120 and 95 sittings)
"""

from __future__ import annotations

from paipu.replay import fmt as human
from . import Test

#: each kind's evidence as a sentence (fields formatted by :func:`_values`)
SENTENCES = {
    "co_seating": "sat together {sittings_together} times where {expected} were expected "
                  "(of {sittings_a} and {sittings_b} sittings)",
    "soft_play": "spared {spared} of {chances} chances to beat ({rate}, 95% interval {ci95}) against "
                 "{baseline_spared} of {baseline_chances} ({baseline_rate}) with the other opponents from the "
                 "same places; z {z}",
    "feeding": "{taken_by_other} of {leads} leads taken by the other ({rate}, 95% interval {ci95}) against "
               "{baseline_rate_leader} of the leader's {baseline_leads} other leads and {baseline_rate_taker} of "
               "the taker's {baseline_takes} other takes; z {z_leader} (leader), {z_taker} (taker), "
               "{z_sittings} over {sittings} sittings",
    "chip_flow": "met as opponents in {hands_as_opponents} hands, the giver lost {losses_of_giver}; giver's "
                 "result {giver_result_with} a hand with the receiver, {giver_result_elsewhere} in "
                 "{giver_hands_elsewhere} other hands; receiver's {receiver_result_with}, {receiver_result_elsewhere} "
                 "in {receiver_hands_elsewhere} other hands; {share_flowed} hands' worth of the giver's losses "
                 "({coins_flowed} coins) went to the receiver; t {t_giver} (giver), {t_receiver} (receiver), "
                 "{t_df} degrees of freedom",
    "dumping": "threw hands to the receiver both ways: chip flow p {p_chip_flow} over {hands_as_opponents} hands met "
               "(the giver lost {losses_of_giver}), soft play p {p_soft_play} (spared {spared} of {chances} chances, "
               "{rate}, against {baseline_rate})",
    "collusion": "sought each other's tables and spared each other there: co-seating p {p_co_seating} ({sittings_together} "
                 "sittings together where {expected} were expected), soft play p {p_soft_play} ({sparer} spared "
                 "{spared} of {chances} chances, {rate}, against {baseline_rate})",
    "card_sharing": "acted as a partner who sees the cards would on {hits} of {chances} chances ({rate}, 95% interval "
                    "{ci95}) where the population's rates at the same kinds of decision give {expected} "
                    "({baseline_rate})",
}
#: a kind's other sentences, tried in turn when the first does not fit (chip flow by stake alone:
#: a pair met too few times for the share reading)
NET = ("the receiver's net gain from the giver {net_gain} points (z {z_net}, p {p_net}); the giver raised the "
       "stake and lost to the receiver {raised_and_lost} times against {giver_raised_lost_rate_elsewhere} of its other "
       "hands (p {p_raise})")
ALTERNATIVES = {"chip_flow": ("met as opponents in {hands_as_opponents} hands",)}
STAKE = ("{heavy_losses_with} heavy losses (at least {heavy_loss_size}, {heavy_coins_with} in all) against "
         "{giver_heavy_rate_elsewhere} of the giver's other hands, the receiver's heavy wins {receiver_heavy_wins_with} "
         "against {receiver_heavy_rate_elsewhere} of its other hands (p {p_stake})")
#: fields whose name alone says too little
NAMES = {"think_options_corr": "think time's correlation with the options", "hours_of_day": "hours of day played",
         "longest_session_h": "longest session (hours)", "long_pause_rate": "long pauses",
         "rho_hand": "correlation within a sitting (population)", "rho_pair": "between pairs (population)"}
#: what each sentence says beside its own fields when they are there
#: (the first that fits; the others are the soft-play evidence of older tables)
EXTRAS = {"hands": ("over {hands} hands (sittings: {sittings}), variance {design_effect} times the binomial "
                    "(beta-binomial, correlation {rho})",
                    "over {hands} hands, variance {design_effect} times the binomial (beta-binomial, correlation {rho})",
                    "over {hands} hands, {spared_capped} spared with runs within a hand capped (p {p_capped})",
                    "over {hands} hands, z {z_hands}"),
          "p_net": (NET, "the receiver's net gain from the giver {net_gain} points (z {z_net}, p {p_net})"),
          "p_stake": (STAKE,),
          "dispersion": ("over-dispersion {dispersion}",),
          # card sharing's signatures, each with its own null and over-dispersion, and its telling decisions
          **{f"{sig}_hits": (f"{what} {{{sig}_hits}} of {{{sig}_chances}} (expected {{{sig}_expected}}, over-dispersion "
                             f"{{{sig}_dispersion}}, z {{z_{sig}}}, p {{p_{sig}}})",)
             for sig, what in (("leave", "passes left to a partner who could beat"),
                               ("block", "the partner's plays let stand"),
                               ("lead", "leads only the partner could beat"))},
          "telling": ("telling decisions {telling}",)}


def suspect_lines(rank: int, t: Test, alpha: float) -> list[str]:
    """A suspect's lines: rank, mark, kind, who, q, p, effect and n; its evidence; its telling hands."""
    # soft play, feeding and chip flow are directed (the sparer, the feeder, the giver first); co-seating
    # and card sharing are not
    who = t.player + (f" {'&' if t.kind in ('co_seating', 'collusion', 'card_sharing') else '->'} {t.other}" if t.other else "")
    mark = "FLAG" if t.q <= alpha else "    "
    lines = [f"{rank:3d} {mark} {t.kind:<10} {t.game}/{t.variant} {who}  q {human.p_value(t.q)}  p {human.p_value(t.p)}  "
             f"effect {_number(t.effect)}  n {t.n:,}",
             "      " + evidence_words(t.kind, t.evidence)]
    if t.hands:
        lines.append("      hands: " + " ".join(t.hands))
    return lines


#: what each kind's n counts (the watch list says how many more of them would settle a test)
UNITS = {"co_seating": "sittings", "soft_play": "chances", "feeding": "leads", "chip_flow": "hands met", "dumping": "hands met", "collusion": "sittings",
         "bot_timing": "decisions", "card_sharing": "chances"}


def watch_lines(rank: int, t: Test) -> list[str]:
    """A watched suspect's lines: as :func:`suspect_lines` with ``WATCH`` for the mark, then
    how many more of its units would settle it."""
    lines = suspect_lines(rank, t, 0.0)
    lines[0] = lines[0][:4] + "WATCH" + lines[0][8:] if lines[0][4:8] == "    " else lines[0]
    unit = UNITS.get(t.kind, "more")
    more = ("already strong enough for its screen alone; flagged when fewer others compete" if t.more == 0 else
            f"about {t.more:,} more {unit} like these would flag it" if t.more is not None else
            "more data at this strength would not flag it soon")
    return [lines[0], lines[1], "      " + more, *lines[2:]]


def evidence_words(kind: str, evidence: dict) -> str:
    """A test's evidence in words: its kind's sentence, else each field as ``name value``.

    >>> evidence_words("soft_play", {"spared": 661, "chances": 785, "rate": 0.842, "ci95": [0.8149, 0.8659],
    ...     "baseline_rate": 0.1277, "baseline_chances": 799, "baseline_spared": 97, "z": 25.1,
    ...     "hands": 141, "sittings": 12, "design_effect": 2.66, "rho": 0.00212, "rho_hand": 0.124, "rho_pair": 0.0})
    'spared 661 of 785 chances to beat (84.2%, 95% interval 81.5% to 86.6%) against 97 of 799 (12.8%) with the other opponents from the same places; z 25.1; over 141 hands (sittings: 12), variance 2.66 times the binomial (beta-binomial, correlation 0.002); correlation within a sitting (population) 0.124; between pairs (population) 0'
    >>> evidence_words("bot_timing", {"regularity": {"value": 0.9296, "population_median": -0.3416, "z": 4.19},
    ...     "long_pause_rate": {"value": 0.0, "population_median": 0.0526, "z": 24.96},
    ...     "features_needed": "3 of 5", "decisions": 5584, "players_compared": 12})
    "regularity 0.930 (players' median -0.342, z 4.2); long pauses 0.0% (players' median 5.3%, z 25.0); features needed 3 of 5; decisions 5,584; players compared 12"
    """
    values = _values(evidence)
    parts, used = [], set()
    for sentence in ((SENTENCES[kind], *ALTERNATIVES.get(kind, ())) if kind in SENTENCES else ()):
        try:
            parts.append(sentence.format(**values))
        except KeyError:  # an older table's evidence: the next sentence, else field by field
            continue
        used = {name for name in evidence if "{" + name + "}" in sentence}
        break
    for name, extras in EXTRAS.items():
        if not parts or name not in evidence or name in used or (name == "dispersion" and evidence[name] == 1):
            continue
        for extra in extras:
            try:
                parts.append(extra.format(**values))
            except KeyError:
                continue
            used |= {field for field in evidence if "{" + field + "}" in extra}
            break
    used |= {"dispersion"} if parts else set()
    parts += [f"{NAMES.get(name, name.replace('_', ' '))} {values[name]}" for name in evidence if name not in used]
    return "; ".join(parts)


def _values(evidence: dict) -> dict[str, str]:
    """Each field of *evidence* as text for people (rates and their intervals as per cent)."""
    out = {}
    for name, x in evidence.items():
        rate = "rate" in name and not name.startswith("z")
        if isinstance(x, dict):  # a bot feature: its value, the players' median, its z
            if "value" in x:
                def show(v, r=rate):
                    return "–" if v is None else (human.percent(v) if r else _number(v))
                out[name] = (f"{show(x.get('value'))} (players' median {show(x.get('population_median'))}, "
                             f"z {_z(x.get('z'))})")
            else:
                out[name] = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in x.items())
        elif name == "telling" and isinstance(x, list):  # card sharing's [hand id, action index, signature, who]
            out[name] = ", ".join(f"{d[0]} #{d[1]} ({d[2]}, {d[3]})" for d in x if isinstance(d, list) and len(d) == 4)
        elif isinstance(x, list) and len(x) == 2 and all(isinstance(v, (int, float)) for v in x):
            out[name] = f"{human.percent(x[0])} to {human.percent(x[1])}" if name == "ci95" else \
                f"{_number(x[0])} to {_number(x[1])}"
        elif isinstance(x, bool) or not isinstance(x, (int, float)):
            out[name] = "–" if x is None else str(x)
        elif rate:
            out[name] = human.percent(x)
        elif name.startswith("p_"):
            out[name] = human.p_value(x)
        elif name == "z" or name.startswith(("z_", "t_")) and name != "t_df":
            out[name] = _z(x)
        else:
            out[name] = _number(x)
    return out


def _number(x: float | int) -> str:
    """Three significant digits, at most three decimals; whole numbers whole."""
    return human.number(x, None if isinstance(x, int) else human.decimals_for([x], most=3))


def _z(z: float | None) -> str:
    return "–" if z is None else f"{z:,.1f}"
