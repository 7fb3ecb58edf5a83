-- Soft play: when player a could beat an opponent's play and passed (spared it), by the
-- opponent b whose play it was and by where b sat from a (`place`: seats apart), next
-- to a's sparing of every other opponent from the same place. Where the play comes from
-- changes what a pass means (straight after it, or after one's partner passed too), and
-- seats stay fixed through a match: the baseline must be the same place's. `place` also
-- holds the legal choices (seats apart x 10 + options, 5 for five or more): with one or two
-- ways to beat, often only a bomb or a top card, an honest player keeps them far more often
-- than with many (a soft player spares on a share of every kind of chance).
with d as (
    select d.game, d.variant, d.player as a, d.target_player as b, (d.seat - d.target_seat) * 10 + least(d.options, 5) as place, d.spared
    from decisions d
    join (select distinct game, hand_id from fraud_seats) f on f.hand_id = d.hand_id and f.game = d.game
    where d.can_beat and d.relation = 'opponent' and d.target_player is not null
), pair as (
    select game, variant, a, b, place, count(*) as n_ab, count(*) filter (where spared) as k_ab from d group by all
), tot as (
    select game, variant, a, place, count(*) as n_a, count(*) filter (where spared) as k_a from d group by all
), kept as (
    select game, variant, a, b from pair group by all having sum(n_ab) >= $min_pair
)
select pair.game, pair.variant, pair.a, pair.b, pair.place, pair.n_ab, pair.k_ab,
       tot.n_a - pair.n_ab as n_other, tot.k_a - pair.k_ab as k_other
from pair
join kept using (game, variant, a, b)
join tot using (game, variant, a, place)
order by pair.game, pair.variant, pair.a, pair.b, pair.place
