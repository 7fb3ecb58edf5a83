-- Soft play per ordered pair, sitting and place: the pair's chances and spares in the hands
-- of each sitting, the hands the same players played at one table (each match, where hands
-- come in matches: a match's levels and seats hold for all of its hands; outside matches a
-- player's play depends on who else sits there, partner and opponents, hand after hand:
-- two honest players who met in one sitting of 44 hands were flagged when each
-- hand was taken apart),
-- for the hand-level test (a player's rare passes come in runs within one hand: a hand
-- whose shape makes it keep its cards passes on the same opponent again and again), and,
-- over every pair, the population's over-dispersion (`overdispersion`). `place` as in
-- pair_soft.sql (seats apart x 10 + options). `hands`: the pair's hands with chances in the
-- sitting (on each of its places' rows).
with x as (
    select d.game, d.variant, d.player as a, d.target_player as b, coalesce(h.match_id, f.sitting) as c,
           (d.seat - d.target_seat) * 10 + least(d.options, 5) as place, d.hand_id, d.spared
    from decisions d
    join (select game, hand_id, list_sort(list(player))::varchar as sitting from fraud_seats group by all) f
      on f.hand_id = d.hand_id and f.game = d.game
    join hands h on h.id = d.hand_id and h.game = d.game
    where d.can_beat and d.relation = 'opponent' and d.target_player is not null
)
select game, variant, a, b, c, place, count(*) as n, count(*) filter (where spared) as k, max(hands) as hands
from (select *, count(distinct hand_id) over (partition by game, variant, a, b, c) as hands from x)
group by game, variant, a, b, c, place
order by all
