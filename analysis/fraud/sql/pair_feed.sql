-- Feeding per ordered pair (a leads, b takes over) and place: the pair's count next to two
-- baselines from the same place, a's leads taken over by its other opponents (`*_other`)
-- and b's take-overs of other players' leads (`*_rival`): a strong b takes everyone's
-- leads, a weak a's leads are taken by everyone; only a pair beyond both is suspect.
with pair as (
    select game, variant, a, b, place, count(*) as n_ab, count(*) filter (where taken) as k_ab
    from feed_chances group by all
), tot_a as (
    select game, variant, a, place, count(*) as n_a, count(*) filter (where taken) as k_a from feed_chances group by all
), tot_b as (
    select game, variant, b, place, count(*) as n_b, count(*) filter (where taken) as k_b from feed_chances group by all
), kept as (
    select game, variant, a, b from pair group by all having sum(n_ab) >= $min_pair
)
select pair.game, pair.variant, pair.a, pair.b, pair.place, pair.n_ab, pair.k_ab,
       tot_a.n_a - pair.n_ab as n_other, tot_a.k_a - pair.k_ab as k_other,
       tot_b.n_b - pair.n_ab as n_rival, tot_b.k_b - pair.k_ab as k_rival
from pair
join kept using (game, variant, a, b)
join tot_a using (game, variant, a, place)
join tot_b using (game, variant, b, place)
order by pair.game, pair.variant, pair.a, pair.b, pair.place
