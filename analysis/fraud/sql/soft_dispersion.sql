-- How clustered each player's sparing is: Pearson chi-square of its sparing per sitting
-- (a match; a hand outside matches) against its overall rate, and the number of sittings.
-- Decisions of one match share its levels and its players' moods: not independent.
with d as (
    select d.game, d.variant, d.player as a, coalesce(h.match_id, d.hand_id) as c, d.spared
    from decisions d
    join (select distinct game, hand_id from fraud_seats) f on f.hand_id = d.hand_id and f.game = d.game
    join hands h on h.id = d.hand_id and h.game = d.game
    where d.can_beat and d.relation = 'opponent' and d.target_player is not null
), rate as (
    select game, variant, a, avg(spared::int) as p from d group by all
), cl as (
    select game, variant, a, c, count(*) as n, count(*) filter (where spared) as k from d group by all
)
select cl.game, cl.variant, cl.a, count(*) as clusters,
       sum((cl.k - cl.n * r.p) ^ 2 / (cl.n * r.p * (1 - r.p))) as chi2
from cl join rate r using (game, variant, a)
where r.p > 0 and r.p < 1
group by all
