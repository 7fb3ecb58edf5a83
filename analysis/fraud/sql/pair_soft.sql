-- Soft play: when player a could beat an opponent's play and passed (spared it), by the
-- opponent b whose play it was, next to a's sparing of every other opponent.
with d as (
    select d.game, d.variant, d.player as a, d.target_player as b, d.spared
    from decisions d
    join (select distinct game, hand_id from fraud_seats) f on f.hand_id = d.hand_id and f.game = d.game
    where d.can_beat and d.relation = 'opponent' and d.target_player is not null
), pair as (
    select game, variant, a, b, count(*) as n_ab, count(*) filter (where spared) as k_ab from d group by all
), tot as (
    select game, variant, a, count(*) as n_a, count(*) filter (where spared) as k_a from d group by all
)
select pair.game, pair.variant, pair.a, pair.b, pair.n_ab, pair.k_ab,
       tot.n_a - pair.n_ab as n_other, tot.k_a - pair.k_ab as k_other
from pair join tot using (game, variant, a)
where pair.n_ab >= $min_pair
