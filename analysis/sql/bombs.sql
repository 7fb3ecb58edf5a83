-- Bombs (rockets included) per hand, and the share of hands with at least one.
select game, variant, setting,
       count(*) as hands,
       avg(bombs + rockets) as bombs_per_hand,
       count(*) filter (where bombs + rockets > 0) as hands_with_bomb,
       hands_with_bomb / hands as rate,
       wilson_lo(hands_with_bomb, hands) as lo,
       wilson_hi(hands_with_bomb, hands) as hi
from played($game, $variant)
group by all
order by all
