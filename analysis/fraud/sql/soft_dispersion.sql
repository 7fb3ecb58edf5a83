-- How clustered each player's sparing is: its chances and spares per sitting (a match; a
-- hand outside matches), with the opponents it could spare there. Decisions of one match
-- share its levels and its players' moods: not independent. The screen measures A's
-- over-dispersion on the sittings without B, so that A's sparing of B (the very effect
-- tested) does not inflate its own variance.
with d as (
    select d.game, d.variant, d.player as a, coalesce(h.match_id, d.hand_id) as c, d.spared, d.target_player as b
    from decisions d
    join (select distinct game, hand_id from fraud_seats) f on f.hand_id = d.hand_id and f.game = d.game
    join hands h on h.id = d.hand_id and h.game = d.game
    where d.can_beat and d.relation = 'opponent' and d.target_player is not null
)
select game, variant, a, c, count(*) as n, count(*) filter (where spared) as k, list(distinct b order by b) as opponents
from d
group by all
order by game, variant, a, c
